/*
 * filterlab.ScalableBloom: a chain of Bloom filters that grows as keys arrive
 * (Almeida et al. 2007, RedisBloom's rules; include/filterlab_sbf.h). Int keys are hashed
 * as Filter hashes them (fl_hash_u64 with the chain's seed), so an int key answers the same
 * in both; the chain itself takes hashes and bytes.
 */
#include "object.h"

#include <string.h>

/* handle: the fl_sbf. */
typedef flpy_seeded_object SbfObject;

static PyTypeObject Sbf_Type;

/* ---- the library calls the shared methods use (object.h) ------------------------------ */

FLPY_DEFINE_FORMAT_CALLS(sbf, fl_sbf, fl_sbf)

FLPY_DEFINE_SEED_INIT(sbf, fl_sbf_info, fl_sbf_get_info)

static fl_status sbf_clear(void *s)
{
    fl_sbf_clear(s);
    return FL_OK;
}

static fl_status sbf_bind_kernel(void *s, const char *name) { return fl_sbf_bind_kernel(s, name); }

/* No merge or copy: the library has no union of two chains. */
static const flpy_ops sbf_ops = {
    .class_name = "ScalableBloom",
    .type = &Sbf_Type,
    FLPY_FORMAT_OPS(sbf),
    .init = sbf_init,
    .clear = sbf_clear,
    .bind_kernel = sbf_bind_kernel,
};

FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS(Sbf, sbf_ops)

static uint64_t hash_bytes(const void *obj, const void *key, size_t len)
{
    return fl_sbf_hash_bytes(obj, key, len);
}

static PyObject *Sbf_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"capacity", "error_rate", "growth", "tightening", "variant",
                             "hash", "seed", "scaling", "max_filters", "max_bytes", NULL};
    PyObject *cap_obj, *hash_obj = Py_None, *seed_obj = NULL, *maxf_obj = NULL,
                       *maxb_obj = NULL;
    fl_sbf_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.growth = FL_SBF_GROWTH_DEFAULT;
    cfg.tightening = FL_SBF_TIGHTENING_DEFAULT;
    const char *variant = "block512";
    int scaling = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Od|$ddsOOpOO:ScalableBloom", kwlist, &cap_obj,
                                     &cfg.error_rate, &cfg.growth, &cfg.tightening, &variant,
                                     &hash_obj, &seed_obj, &scaling, &maxf_obj, &maxb_obj))
        return NULL;
    uint64_t maxf = 0;
    if (flpy_u64_arg(cap_obj, &cfg.capacity, "capacity") < 0 ||
        flpy_parse_hash(hash_obj, &cfg.hash) < 0 ||
        (seed_obj != NULL && flpy_u64_arg(seed_obj, &cfg.seed, "seed") < 0) ||
        (maxf_obj != NULL && flpy_u64_arg(maxf_obj, &maxf, "max_filters") < 0) ||
        (maxb_obj != NULL && flpy_u64_arg(maxb_obj, &cfg.max_bytes, "max_bytes") < 0))
        return NULL;
    if (maxf > FL_SBF_FILTERS_MAX) {
        PyErr_Format(PyExc_ValueError, "max_filters must be at most %u", FL_SBF_FILTERS_MAX);
        return NULL;
    }
    cfg.max_filters = (uint32_t)maxf;
    if (fl_variant_parse(variant, &cfg.variant) != FL_OK) {
        PyErr_Format(PyExc_ValueError, "unknown variant '%s'", variant);
        return NULL;
    }
    cfg.flags = scaling ? 0 : FL_SBF_NONSCALING;
    fl_sbf *s = NULL;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = fl_sbf_create(&cfg, &s);
    Py_END_ALLOW_THREADS
    if (st != FL_OK)
        return flpy_raise(st, "ScalableBloom", NULL);
    return flpy_wrap(type, &sbf_ops, s);
}

static uint64_t key_hash(SbfObject *self, const flpy_key *k)
{
    return k->is_int ? fl_hash_u64(k->u64, self->seed)
                     : fl_sbf_hash_bytes(self->base.handle, k->data, k->len);
}

static PyObject *add_hash_value(SbfObject *self, uint64_t h)
{
    int added = 0;
    flpy_write_lock_gil(&self->base.lock);
    fl_status st = fl_sbf_add_hash(self->base.handle, h, &added);
    flpy_unlock(&self->base.lock);
    if (st != FL_OK)
        return flpy_raise(st, "add", NULL);
    return PyBool_FromLong(added);
}

static PyObject *Sbf_add(SbfObject *self, PyObject *key)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return NULL;
    uint64_t h = key_hash(self, &k);
    flpy_key_release(&k);
    return add_hash_value(self, h);
}

static PyObject *Sbf_add_hash(SbfObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    return add_hash_value(self, h);
}

static int contains_key(SbfObject *self, PyObject *key)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return -1;
    uint64_t h = key_hash(self, &k);
    flpy_key_release(&k);
    flpy_read_lock_gil(&self->base.lock);
    int r = fl_sbf_contains_hash(self->base.handle, h);
    flpy_unlock(&self->base.lock);
    return r;
}

static PyObject *Sbf_contains(SbfObject *self, PyObject *key)
{
    int r = contains_key(self, key);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

static int Sbf_sq_contains(SbfObject *self, PyObject *key) { return contains_key(self, key); }

static PyObject *Sbf_contains_hash(SbfObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    flpy_read_lock_gil(&self->base.lock);
    int r = fl_sbf_contains_hash(self->base.handle, h);
    flpy_unlock(&self->base.lock);
    return PyBool_FromLong(r);
}

static PyObject *Sbf_hash(SbfObject *self, PyObject *key)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return NULL;
    uint64_t h = key_hash(self, &k);
    flpy_key_release(&k);
    return PyLong_FromUnsignedLongLong(h);
}

static fl_status add_hashes(void *s, const uint64_t *h, size_t n, uint8_t *out)
{
    return fl_sbf_add_hashes(s, h, n, out, NULL);
}

static fl_status contains_hashes(void *s, const uint64_t *h, size_t n, uint8_t *out)
{
    return fl_sbf_contains_hashes(s, h, n, out, NULL);
}

static PyObject *Sbf_add_many(SbfObject *self, PyObject *args, PyObject *kw)
{
    return flpy_seeded_batch(self, args, kw, "O|$pO", 1, hash_bytes, add_hashes, "add_many", NULL);
}

static PyObject *Sbf_contains_many(SbfObject *self, PyObject *args, PyObject *kw)
{
    return flpy_seeded_batch(self, args, kw, "O|$pO", 0, hash_bytes, contains_hashes,
                             "contains_many", NULL);
}

static Py_ssize_t Sbf_len(SbfObject *self)
{
    flpy_read_lock_gil(&self->base.lock);
    uint64_t n = fl_sbf_count(self->base.handle);
    flpy_unlock(&self->base.lock);
    return n > PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)n;
}

static PyObject *subfilter_info(const fl_sbf_filter_info *fi)
{
    PyObject *d = Py_BuildValue("{s:K,s:K,s:d,s:d,s:K}",
                                "capacity", (unsigned long long)fi->capacity,
                                "items", (unsigned long long)fi->items,
                                "target_fpr", (double)fi->target_fpr,
                                "predicted_fpr", (double)fi->predicted_fpr,
                                "bytes", (unsigned long long)fi->bytes);
    return flpy_make_info("SubFilterInfo", flpy_with_geometry(d, &fi->geometry));
}

static PyObject *Sbf_info(SbfObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_sbf_info in;
    flpy_read_lock_gil(&self->base.lock);
    fl_status st = fl_sbf_get_info(self->base.handle, &in);
    PyObject *subs = st == FL_OK ? PyList_New(0) : NULL;
    for (uint32_t i = 0; subs != NULL && i < in.filters; i++) {
        fl_sbf_filter_info fi;
        PyObject *one = fl_sbf_filter_info_at(self->base.handle, i, &fi) == FL_OK
                            ? subfilter_info(&fi)
                            : NULL;
        if (one == NULL || PyList_Append(subs, one) < 0)
            Py_CLEAR(subs);
        Py_XDECREF(one);
    }
    const char *kernel = fl_sbf_kernel(self->base.handle, 0);
    if (kernel == NULL)
        kernel = fl_kernel_active();
    flpy_unlock(&self->base.lock);
    if (st != FL_OK)
        return flpy_raise(st, "info", NULL);
    if (subs == NULL)
        return NULL;
    PyObject *d = Py_BuildValue("{s:K,s:K,s:K,s:d,s:d,s:d,s:s,s:s,s:K,s:N,s:k,s:K,s:K,s:K,s:d,s:s,"
                                "s:N}",
                                "capacity", (unsigned long long)in.capacity,
                                "total_capacity", (unsigned long long)in.total_capacity,
                                "items", (unsigned long long)in.items,
                                "error_rate", (double)in.error_rate,
                                "growth", (double)in.growth,
                                "tightening", (double)in.tightening,
                                "variant", fl_variant_name(in.variant),
                                "hash", in.hash == FL_HASH_XXH64 ? "xxh64" : "xxh3",
                                "seed", (unsigned long long)in.seed,
                                "scaling", PyBool_FromLong(!(in.flags & FL_SBF_NONSCALING)),
                                "max_filters", (unsigned long)in.max_filters,
                                "max_bytes", (unsigned long long)in.max_bytes,
                                "byte_limit", (unsigned long long)in.byte_limit,
                                "bytes", (unsigned long long)in.bytes,
                                "predicted_fpr", (double)in.predicted_fpr,
                                "kernel", kernel,
                                "filters", subs);
    return flpy_make_info("ScalableBloomInfo", d);
}

static PyObject *Sbf_set_byte_limit(SbfObject *self, PyObject *arg)
{
    uint64_t bytes = 0;
    if (arg != Py_None && flpy_u64_arg(arg, &bytes, "byte_limit") < 0)
        return NULL;
    flpy_write_lock_gil(&self->base.lock);
    fl_status st = fl_sbf_set_byte_limit(self->base.handle, bytes);
    flpy_unlock(&self->base.lock);
    if (st != FL_OK)
        return flpy_raise(st, "set_byte_limit", NULL);
    Py_RETURN_NONE;
}

static PyObject *Sbf_get_kernel(SbfObject *self, void *Py_UNUSED(c))
{
    flpy_read_lock_gil(&self->base.lock);
    const char *k = fl_sbf_kernel(self->base.handle, 0);
    if (k == NULL)
        k = fl_kernel_active();
    flpy_unlock(&self->base.lock);
    return PyUnicode_FromString(k);
}

static PyObject *Sbf_repr(SbfObject *self)
{
    fl_sbf_info in;
    flpy_read_lock_gil(&self->base.lock);
    fl_sbf_get_info(self->base.handle, &in);
    flpy_unlock(&self->base.lock);
    return PyUnicode_FromFormat("<filterlab.ScalableBloom %s: %u sub-filters, %llu items>",
                                fl_variant_name(in.variant), in.filters,
                                (unsigned long long)in.items);
}

static PyMethodDef Sbf_methods[] = {
    {"add", (PyCFunction)Sbf_add, METH_O,
     "add(key) -> bool\n--\n\nAdds a key unless the chain already reports it (BF.ADD): True if "
     "inserted. FullError for a non-scaling chain at capacity; ValueError past max_filters / "
     "max_bytes."},
    {"add_hash", (PyCFunction)Sbf_add_hash, METH_O,
     "add_hash(h) -> bool\n--\n\nadd() for a precomputed 64-bit hash."},
    {"add_many", (PyCFunction)(void (*)(void))Sbf_add_many, METH_VARARGS | METH_KEYWORDS,
     "add_many(keys, *, hashes=False, out=None)\n--\n\nAdds a batch in order; returns a bool "
     "array (or out), True where the key was inserted. GIL released."},
    {"contains", (PyCFunction)Sbf_contains, METH_O,
     "contains(key)\n--\n\nTrue if some sub-filter reports the key."},
    {"contains_hash", (PyCFunction)Sbf_contains_hash, METH_O,
     "contains_hash(h)\n--\n\ncontains() for a precomputed 64-bit hash."},
    {"contains_many", (PyCFunction)(void (*)(void))Sbf_contains_many,
     METH_VARARGS | METH_KEYWORDS,
     "contains_many(keys, *, hashes=False, out=None)\n--\n\nA NumPy bool array (or out, "
     "filled in place); GIL released."},
    {"hash", (PyCFunction)Sbf_hash, METH_O, "hash(key)\n--\n\nThe chain's 64-bit hash of key."},
    FLPY_CLEAR_METHOD("clear()\n--\n\nBack to the chain as created (first sub-filter, empty)."),
    FLPY_FILE_METHODS(Sbf,
      "to_bytes()\n--\n\nThe chain in the filterlab file format.",
      "from_bytes(data, max_bytes=0)\n--\n\nA chain from filterlab-format bytes (FormatError if "
      "bad; a plain filter's bytes are FormatError too: wrong kind). max_bytes (0: none) caps "
      "the payload the load allocates and stays the chain's byte_limit: later growth past it "
      "is refused (ValueError), whatever the data stores; give one for untrusted data.",
      "save(path)\n--\n\nWrites the chain atomically.",
      "load(path, max_bytes=0)\n--\n\nReads a chain file (CLI `build --grow` writes them); "
      "max_bytes as in from_bytes."),
    {"set_byte_limit", (PyCFunction)Sbf_set_byte_limit, METH_O,
     "set_byte_limit(n)\n--\n\nCaps the payload bytes the chain may grow to in this "
     "process (0 or None: no limit beyond max_bytes). Not saved, pickled or copied; a load "
     "sets it to its max_bytes."},
    {"info", (PyCFunction)Sbf_info, METH_NOARGS,
     "info()\n--\n\nA ScalableBloomInfo dataclass, with one SubFilterInfo per sub-filter."},
    FLPY_BIND_KERNEL_METHOD(
      "bind_kernel(name)\n--\n\nBinds every sub-filter (and later ones) to a kernel; None or "
      "'auto' unbinds."),
    FLPY_REDUCE_METHOD_AND_END,
};

static PyGetSetDef Sbf_getset[] = {
    {"kernel", (getter)Sbf_get_kernel, NULL, "The kernel the chain's calls use.", NULL},
    FLPY_BOUND_KERNEL_GETTER("The kernel bound, or None."),
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Sbf_as_sequence = {
    .sq_length = (lenfunc)Sbf_len,
    .sq_contains = (objobjproc)Sbf_sq_contains,
};

static PyTypeObject Sbf_Type = {
    FLPY_TYPE_FIELDS(Sbf, SbfObject, "ScalableBloom"),
    .tp_as_sequence = &Sbf_as_sequence,
    .tp_doc = "ScalableBloom(capacity, error_rate, *, growth=2.0, tightening=0.5, "
              "variant='block512', hash=None, seed=0, scaling=True, max_filters=0, "
              "max_bytes=0)\n--\n\n"
              "A scalable Bloom filter (Almeida et al. 2007) with RedisBloom's semantics: "
              "the FPR stays below error_rate however many keys arrive. len() is the number "
              "of keys added (each counted once).",
    .tp_getset = Sbf_getset,
};

FLPY_DEFINE_ADD(sbf, Sbf)
