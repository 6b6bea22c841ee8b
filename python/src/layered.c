/*
 * filterlab.LayeredBloom: R Bloom filters that count a key's insertions up to R
 * (Zhiwang, Jungang and Jian, ICACTE 2010; seed 004, 4.11.3; include/filterlab_layered.h).
 * Int keys are hashed as Filter hashes them (fl_hash_u64 with the seed), so an int key has
 * the same 64-bit hash in both; the layers remix that hash themselves.
 */
#include "object.h"

#include <string.h>

typedef struct {
    flpy_object base; /* handle: the fl_lbf */
    uint64_t seed;    /* for int keys hashed here */
    uint32_t layers;
    int can_delete;   /* fixed at creation; kept here so reading it takes no lock */
} LayeredObject;

static PyTypeObject Layered_Type;

/* ---- the library calls the shared methods use (object.h) ------------------------------ */

FLPY_DEFINE_FORMAT_CALLS(lbf, fl_lbf, fl_lbf)

static void lbf_init(flpy_object *self)
{
    fl_lbf_info in;
    fl_lbf_get_info(self->handle, &in);
    ((LayeredObject *)self)->seed = in.seed;
    ((LayeredObject *)self)->layers = in.layers;
    ((LayeredObject *)self)->can_delete = in.can_delete;
}

static fl_status lbf_clear(void *l)
{
    fl_lbf_clear(l);
    return FL_OK;
}

static fl_status lbf_bind_kernel(void *l, const char *name) { return fl_lbf_bind_kernel(l, name); }

/* No merge: the library has no union of two layered filters (a key's layers would not add
 * up). Copies go through the file format, which is exact. */
static const flpy_ops lbf_ops = {
    .class_name = "LayeredBloom",
    .type = &Layered_Type,
    FLPY_FORMAT_OPS(lbf),
    .init = lbf_init,
    .clear = lbf_clear,
    .bind_kernel = lbf_bind_kernel,
};

FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS(Layered, lbf_ops)

static uint64_t hash_bytes(const void *obj, const void *key, size_t len)
{
    return fl_lbf_hash_bytes(obj, key, len);
}

static PyObject *Layered_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"layers", "n", "fpr", "variant", "hash", "seed", NULL};
    PyObject *layers_obj, *n_obj, *hash_obj = Py_None, *seed_obj = NULL;
    const char *variant = "block512";
    fl_lbf_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOd|s$OO:LayeredBloom", kwlist, &layers_obj,
                                     &n_obj, &cfg.fpr, &variant, &hash_obj, &seed_obj))
        return NULL;
    uint64_t layers;
    if (flpy_u64_arg(layers_obj, &layers, "layers") < 0 ||
        flpy_u64_arg(n_obj, &cfg.capacity, "n") < 0 ||
        flpy_parse_hash(hash_obj, &cfg.hash) < 0 ||
        (seed_obj != NULL && flpy_u64_arg(seed_obj, &cfg.seed, "seed") < 0))
        return NULL;
    if (layers < 1 || layers > FL_LBF_LAYERS_MAX) {
        PyErr_Format(PyExc_ValueError, "layers must be 1..%u", FL_LBF_LAYERS_MAX);
        return NULL;
    }
    cfg.layers = (uint32_t)layers;
    if (fl_variant_parse(variant, &cfg.variant) != FL_OK) {
        PyErr_Format(PyExc_ValueError, "unknown variant '%s'", variant);
        return NULL;
    }
    fl_lbf *l = NULL;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = fl_lbf_create(&cfg, &l);
    Py_END_ALLOW_THREADS
    if (st != FL_OK)
        return flpy_raise(st, "LayeredBloom", NULL);
    return flpy_wrap(type, &lbf_ops, l);
}

/* ---- single keys ---------------------------------------------------------------------- */

static int key_hash(LayeredObject *self, PyObject *key, uint64_t *h)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return -1;
    *h = k.is_int ? fl_hash_u64(k.u64, self->seed)
                  : fl_lbf_hash_bytes(self->base.handle, k.data, k.len);
    flpy_key_release(&k);
    return 0;
}

typedef fl_status (*change_fn)(fl_lbf *, uint64_t, uint32_t *);

/* add and delete: one occurrence under the write lock; returns the count after it. */
static PyObject *change_hash_value(LayeredObject *self, uint64_t h, change_fn change,
                                   const char *what)
{
    uint32_t count = 0;
    flpy_write_lock_gil(&self->base.lock);
    fl_status st = change(self->base.handle, h, &count);
    flpy_unlock(&self->base.lock);
    if (st != FL_OK)
        return flpy_raise(st, what, NULL);
    return PyLong_FromUnsignedLong(count);
}

static PyObject *Layered_add(LayeredObject *self, PyObject *key)
{
    uint64_t h;
    return key_hash(self, key, &h) < 0 ? NULL
                                        : change_hash_value(self, h, fl_lbf_add_hash, "add");
}

static PyObject *Layered_add_hash(LayeredObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    return change_hash_value(self, h, fl_lbf_add_hash, "add_hash");
}

static PyObject *Layered_delete(LayeredObject *self, PyObject *key)
{
    uint64_t h;
    return key_hash(self, key, &h) < 0
               ? NULL
               : change_hash_value(self, h, fl_lbf_delete_hash, "delete");
}

static PyObject *Layered_delete_hash(LayeredObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    return change_hash_value(self, h, fl_lbf_delete_hash, "delete_hash");
}

static uint32_t count_of(LayeredObject *self, uint64_t h)
{
    flpy_read_lock_gil(&self->base.lock);
    uint32_t c = fl_lbf_count_hash(self->base.handle, h);
    flpy_unlock(&self->base.lock);
    return c;
}

static PyObject *Layered_count(LayeredObject *self, PyObject *key)
{
    uint64_t h;
    if (key_hash(self, key, &h) < 0)
        return NULL;
    return PyLong_FromUnsignedLong(count_of(self, h));
}

static PyObject *Layered_count_hash(LayeredObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    return PyLong_FromUnsignedLong(count_of(self, h));
}

static int Layered_sq_contains(LayeredObject *self, PyObject *key)
{
    uint64_t h;
    if (key_hash(self, key, &h) < 0)
        return -1;
    return count_of(self, h) > 0;
}

static PyObject *Layered_hash(LayeredObject *self, PyObject *key)
{
    uint64_t h;
    if (key_hash(self, key, &h) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(h);
}

/* ---- batches -------------------------------------------------------------------------- */

/* The shared output helper takes bool or uint8 for one-byte items; counts go to uint8 only
 * (a bool array would hold values above 1). */
static int out_is_bool(PyObject *out_obj)
{
    Py_buffer view;
    if (out_obj == Py_None || PyObject_GetBuffer(out_obj, &view, PyBUF_FORMAT) < 0) {
        PyErr_Clear(); /* not a buffer: flpy_out_get says so */
        return 0;
    }
    const char *fmt = view.format ? view.format : "B";
    if (*fmt == '@' || *fmt == '=' || *fmt == '<')
        fmt++;
    int is_bool = strcmp(fmt, "?") == 0;
    PyBuffer_Release(&view);
    return is_bool;
}

static PyObject *Layered_count_many(LayeredObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"keys", "hashes", "out", NULL};
    PyObject *obj, *out_obj = Py_None;
    int as_hashes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$pO:count_many", kwlist, &obj, &as_hashes,
                                     &out_obj))
        return NULL;
    if (out_is_bool(out_obj)) {
        PyErr_SetString(PyExc_TypeError,
                        "out must be a one-dimensional uint8 array (counts, not bools)");
        return NULL;
    }
    flpy_batch b;
    if (flpy_batch_get(obj, as_hashes, out_obj, NPY_UINT8, 1, &b) < 0)
        return NULL;
    const flpy_keys *k = &b.keys;
    uint8_t *counts = b.out.data;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    const uint64_t *h = flpy_hashes(k, as_hashes, hash_bytes, self->base.handle,
                                    flpy_hash_u64_with_seed, &self->seed, b.tmp);
    flpy_read_lock(&self->base.lock);
    st = fl_lbf_count_hashes(self->base.handle, h, (size_t)k->n, counts);
    flpy_unlock(&self->base.lock);
    Py_END_ALLOW_THREADS
    return flpy_batch_finish(&b, st, "count_many");
}

static PyObject *Layered_add_many(LayeredObject *self, PyObject *args, PyObject *kw)
{
    flpy_keys k;
    int as_hashes;
    if (flpy_keys_from_args(args, kw, "O|$p:add_many", &k, &as_hashes) < 0)
        return NULL;
    uint64_t *tmp = NULL;
    if (flpy_keys_need_tmp(&k, as_hashes) && (tmp = flpy_alloc_u64(k.n)) == NULL) {
        flpy_keys_release(&k);
        return NULL;
    }
    size_t saturated = 0;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    const uint64_t *h = flpy_hashes(&k, as_hashes, hash_bytes, self->base.handle,
                                    flpy_hash_u64_with_seed, &self->seed, tmp);
    flpy_write_lock(&self->base.lock);
    st = fl_lbf_add_hashes(self->base.handle, h, (size_t)k.n, &saturated);
    flpy_unlock(&self->base.lock);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(tmp);
    flpy_keys_release(&k);
    if (st != FL_OK)
        return flpy_raise(st, "add_many", NULL);
    return PyLong_FromSize_t(saturated);
}

/* ---- info and kernels ----------------------------------------------------------------- */

static const char *kernel_of(const fl_lbf *l)
{
    const fl_filter *first = fl_lbf_layer_at(l, 0);
    return first ? fl_filter_kernel(first) : fl_kernel_active();
}

static PyObject *Layered_info(LayeredObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_lbf_info in;
    flpy_read_lock_gil(&self->base.lock);
    fl_status st = fl_lbf_get_info(self->base.handle, &in);
    PyObject *per_layer = st == FL_OK ? PyList_New(0) : NULL;
    for (uint32_t i = 0; per_layer != NULL && i < in.layers; i++) {
        PyObject *n = PyLong_FromUnsignedLongLong(fl_lbf_layer_keys(self->base.handle, i));
        if (n == NULL || PyList_Append(per_layer, n) < 0)
            Py_CLEAR(per_layer);
        Py_XDECREF(n);
    }
    const char *kernel = kernel_of(self->base.handle);
    flpy_unlock(&self->base.lock);
    if (st != FL_OK)
        return flpy_raise(st, "info", NULL);
    if (per_layer == NULL)
        return NULL;
    char geom[160];
    fl_geometry_describe(&in.geometry, geom, sizeof geom);
    PyObject *d = Py_BuildValue("{s:k,s:K,s:d,s:s,s:s,s:K,s:s,s:K,s:k,s:K,s:K,s:K,s:N,s:s,s:N}",
                                "layers", (unsigned long)in.layers,
                                "capacity", (unsigned long long)in.capacity,
                                "fpr", (double)in.fpr,
                                "variant", fl_variant_name(in.variant),
                                "hash", in.hash == FL_HASH_XXH64 ? "xxh64" : "xxh3",
                                "seed", (unsigned long long)in.seed,
                                "geometry", geom,
                                "units", (unsigned long long)in.geometry.units,
                                "k", (unsigned long)in.geometry.k,
                                "adds", (unsigned long long)in.adds,
                                "deletes", (unsigned long long)in.deletes,
                                "bytes", (unsigned long long)in.bytes,
                                "can_delete", PyBool_FromLong(in.can_delete),
                                "kernel", kernel,
                                "layer_keys", per_layer);
    return flpy_make_info("LayeredBloomInfo", d);
}

static PyObject *Layered_get_kernel(LayeredObject *self, void *Py_UNUSED(c))
{
    flpy_read_lock_gil(&self->base.lock);
    const char *k = kernel_of(self->base.handle);
    flpy_unlock(&self->base.lock);
    return PyUnicode_FromString(k);
}

static PyObject *Layered_get_layers(LayeredObject *self, void *Py_UNUSED(c))
{
    return PyLong_FromUnsignedLong(self->layers);
}

static PyObject *Layered_get_seed(LayeredObject *self, void *Py_UNUSED(c))
{
    return PyLong_FromUnsignedLongLong(self->seed);
}

static PyObject *Layered_get_can_delete(LayeredObject *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(self->can_delete);
}

static PyObject *Layered_repr(LayeredObject *self)
{
    fl_lbf_info in;
    flpy_read_lock_gil(&self->base.lock);
    fl_lbf_get_info(self->base.handle, &in);
    flpy_unlock(&self->base.lock);
    return PyUnicode_FromFormat("<filterlab.LayeredBloom %s: %u layers of %llu keys, %llu adds>",
                                fl_variant_name(in.variant), in.layers,
                                (unsigned long long)in.capacity, (unsigned long long)in.adds);
}

static PyMethodDef Layered_methods[] = {
    {"add", (PyCFunction)Layered_add, METH_O,
     "add(key) -> int\n--\n\nAdds one occurrence of key; returns its count after the add "
     "(R if it already counted R: the count saturates)."},
    {"add_hash", (PyCFunction)Layered_add_hash, METH_O,
     "add_hash(h) -> int\n--\n\nadd() for a precomputed 64-bit hash (hash())."},
    {"add_many", (PyCFunction)(void (*)(void))Layered_add_many, METH_VARARGS | METH_KEYWORDS,
     "add_many(keys, *, hashes=False) -> int\n--\n\nAdds a batch, exactly as adding the keys "
     "one by one in order (a key twice in the batch counts twice); returns how many adds "
     "found their key already at R. GIL released."},
    {"count", (PyCFunction)Layered_count, METH_O,
     "count(key) -> int\n--\n\nThe key's count, 0..R: the consecutive layers, from the "
     "first, that report it. Never below the key's adds (up to R, without deletes); above "
     "them by d with probability about fpr**d."},
    {"count_hash", (PyCFunction)Layered_count_hash, METH_O,
     "count_hash(h) -> int\n--\n\ncount() for a precomputed 64-bit hash."},
    {"count_many", (PyCFunction)(void (*)(void))Layered_count_many,
     METH_VARARGS | METH_KEYWORDS,
     "count_many(keys, *, hashes=False, out=None)\n--\n\nA NumPy uint8 array of counts (or "
     "out, a uint8 buffer filled in place); layer by layer with the batch kernels, GIL "
     "released."},
    {"delete", (PyCFunction)Layered_delete, METH_O,
     "delete(key) -> int\n--\n\nRemoves one occurrence (from the deepest layer reporting the "
     "key); returns the count after it. ValueError if the variant cannot delete (only "
     "counting and counting512 can), KeyError if the count is 0. Delete only keys you "
     "added: deleting a false positive lowers other keys' counts."},
    {"delete_hash", (PyCFunction)Layered_delete_hash, METH_O,
     "delete_hash(h) -> int\n--\n\ndelete() for a precomputed 64-bit hash."},
    {"hash", (PyCFunction)Layered_hash, METH_O,
     "hash(key)\n--\n\nThe filter's 64-bit hash of key (the layers remix it)."},
    FLPY_CLEAR_METHOD("clear()\n--\n\nEmpties every layer."),
    FLPY_COPY_METHOD("copy()\n--\n\nAn independent copy (same layers, seed and kernel binding)."),
    FLPY_FILE_METHODS(Layered,
      "to_bytes()\n--\n\nThe filter in the filterlab file format (container kind 7).",
      "from_bytes(data, max_bytes=0)\n--\n\nA layered filter from filterlab-format bytes "
      "(FormatError if bad or of another kind; max_bytes caps the layers' payload).",
      "save(path)\n--\n\nWrites the filter atomically.",
      "load(path, max_bytes=0)\n--\n\nReads a layered filter file (CLI `layered-build` writes "
      "them)."),
    {"info", (PyCFunction)Layered_info, METH_NOARGS,
     "info()\n--\n\nA LayeredBloomInfo dataclass (layer_keys: the keys each layer holds)."},
    FLPY_BIND_KERNEL_METHOD(
      "bind_kernel(name)\n--\n\nBinds every layer to a kernel; None or 'auto' unbinds."),
    FLPY_REDUCE_METHOD_AND_END,
};

static PyGetSetDef Layered_getset[] = {
    {"kernel", (getter)Layered_get_kernel, NULL, "The kernel the layers' calls use.", NULL},
    FLPY_BOUND_KERNEL_GETTER("The kernel bound, or None."),
    {"layers", (getter)Layered_get_layers, NULL, "R: the number of layers (largest count).",
     NULL},
    {"seed", (getter)Layered_get_seed, NULL, "The hash seed.", NULL},
    {"can_delete", (getter)Layered_get_can_delete, NULL,
     "True if the layers' variant allows delete().", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Layered_as_sequence = {
    .sq_contains = (objobjproc)Layered_sq_contains,
};

static PyTypeObject Layered_Type = {
    FLPY_TYPE_FIELDS(Layered, LayeredObject, "LayeredBloom"),
    .tp_as_sequence = &Layered_as_sequence,
    .tp_doc = "LayeredBloom(layers, n, fpr, variant='block512', *, hash=None, seed=0)\n--\n\n"
              "A layered Bloom filter (Zhiwang, Jungang and Jian 2010): `layers` Bloom "
              "filters, each sized for n keys at fpr, that count a key's insertions up to "
              "`layers`. `key in f` is count(key) > 0. Variants: block512 (default), "
              "classic, split256, reg64, and counting / counting512, which allow delete().",
    .tp_getset = Layered_getset,
};

FLPY_DEFINE_ADD(layered, Layered)
