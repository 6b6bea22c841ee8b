/*
 * filterlab.GrowingCuckoo: a cuckoo filter that doubles its table in place as keys arrive,
 * with deletes and one lookup of two buckets at every size (include/filterlab_gcf.h:
 * InfiniFilter's and Taffy's fingerprints that carry the bits a doubling consumes). Int keys
 * are hashed as Filter hashes them (fl_hash_u64 with the filter's seed, the library's
 * fl_gcf_*_u64 calls), strings and bytes with XXH3 and the seed.
 */
#include "object.h"

#include <stdio.h>
#include <string.h>

/* handle: the fl_gcf. */
typedef flpy_object GcfObject;

static PyTypeObject Gcf_Type;

/* ---- the library calls the shared methods use (object.h) ------------------------------ */

FLPY_DEFINE_FORMAT_CALLS(gcf, fl_gcf, fl_gcf)

static fl_status gcf_clear(void *g) { return fl_gcf_clear(g); }

static fl_status gcf_bind_kernel(void *g, const char *name) { return fl_gcf_bind_kernel(g, name); }

/* No merge or copy: the library has no union of two tables nor a copy call. */
static const flpy_ops gcf_ops = {
    .class_name = "GrowingCuckoo",
    .type = &Gcf_Type,
    FLPY_FORMAT_OPS(gcf),
    .clear = gcf_clear,
    .bind_kernel = gcf_bind_kernel,
};

FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS(Gcf, gcf_ops)

static PyObject *Gcf_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"capacity", "seed", "max_bytes", NULL};
    PyObject *cap_obj, *seed_obj = NULL, *maxb_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OO:GrowingCuckoo", kwlist, &cap_obj,
                                     &seed_obj, &maxb_obj))
        return NULL;
    uint64_t capacity, seed = 0, max_bytes = 0;
    if (flpy_u64_arg(cap_obj, &capacity, "capacity") < 0 ||
        (seed_obj != NULL && flpy_u64_arg(seed_obj, &seed, "seed") < 0) ||
        (maxb_obj != NULL && flpy_u64_arg(maxb_obj, &max_bytes, "max_bytes") < 0))
        return NULL;
    if (capacity == 0) {
        PyErr_SetString(PyExc_ValueError, "GrowingCuckoo: capacity must be at least 1");
        return NULL;
    }
    /* The first table's bytes are known before it is allocated (fl_gcf_create: at least
     * capacity / (4 * grow load) buckets of 8 bytes): refuse past max_bytes at once. */
    if (max_bytes && (double)capacity / (FL_GCF_SLOTS * FL_GCF_GROW_LOAD) * 8.0 >
                         (double)max_bytes)
        return flpy_raise(FL_ERR_TOO_LARGE, "GrowingCuckoo", NULL);
    fl_gcf *g = NULL;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = fl_gcf_create(capacity, seed, &g);
    Py_END_ALLOW_THREADS
    if (st == FL_OK && max_bytes) {
        fl_gcf_info in;
        fl_gcf_info_get(g, &in);
        if (in.bytes > max_bytes) st = FL_ERR_TOO_LARGE;
        else st = fl_gcf_set_byte_limit(g, max_bytes);
        if (st != FL_OK) fl_gcf_free(g);
    }
    if (st != FL_OK)
        return flpy_raise(st, "GrowingCuckoo", NULL);
    return flpy_wrap(type, &gcf_ops, g);
}

static uint64_t key_hash(const GcfObject *self, const flpy_key *k)
{
    return k->is_int ? fl_gcf_hash_u64(self->handle, k->u64)
                     : fl_gcf_hash_bytes(self->handle, k->data, k->len);
}

/* ---- single keys ---------------------------------------------------------------------- */

/* add and delete of one hash under the write lock; `what` names the call in errors. */
static PyObject *change_hash(GcfObject *self, uint64_t h,
                             fl_status (*change)(fl_gcf *, uint64_t), const char *what)
{
    flpy_write_lock_gil(&self->lock);
    fl_status st = change(self->handle, h);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, what, NULL);
    Py_RETURN_NONE;
}

static int key_arg(GcfObject *self, PyObject *key, uint64_t *h)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return -1;
    *h = key_hash(self, &k);
    flpy_key_release(&k);
    return 0;
}

static PyObject *Gcf_add(GcfObject *self, PyObject *key)
{
    uint64_t h;
    return key_arg(self, key, &h) < 0 ? NULL : change_hash(self, h, fl_gcf_insert_hash, "add");
}

static PyObject *Gcf_add_hash(GcfObject *self, PyObject *arg)
{
    uint64_t h;
    return flpy_u64_arg(arg, &h, "hash") < 0 ? NULL
                                              : change_hash(self, h, fl_gcf_insert_hash, "add_hash");
}

static PyObject *Gcf_delete(GcfObject *self, PyObject *key)
{
    uint64_t h;
    return key_arg(self, key, &h) < 0 ? NULL : change_hash(self, h, fl_gcf_delete_hash, "delete");
}

static PyObject *Gcf_delete_hash(GcfObject *self, PyObject *arg)
{
    uint64_t h;
    return flpy_u64_arg(arg, &h, "hash") < 0
               ? NULL
               : change_hash(self, h, fl_gcf_delete_hash, "delete_hash");
}

static int contains_key(GcfObject *self, PyObject *key)
{
    uint64_t h;
    if (key_arg(self, key, &h) < 0)
        return -1;
    flpy_read_lock_gil(&self->lock);
    int r = fl_gcf_contains_hash(self->handle, h);
    flpy_unlock(&self->lock);
    return r;
}

static PyObject *Gcf_contains(GcfObject *self, PyObject *key)
{
    int r = contains_key(self, key);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

static int Gcf_sq_contains(GcfObject *self, PyObject *key) { return contains_key(self, key); }

static PyObject *Gcf_contains_hash(GcfObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    flpy_read_lock_gil(&self->lock);
    int r = fl_gcf_contains_hash(self->handle, h);
    flpy_unlock(&self->lock);
    return PyBool_FromLong(r);
}

static PyObject *count_of(GcfObject *self, uint64_t h)
{
    uint32_t c = 0;
    flpy_read_lock_gil(&self->lock);
    fl_status st = fl_gcf_count_hash(self->handle, h, &c);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "count", NULL);
    return PyLong_FromUnsignedLong(c);
}

static PyObject *Gcf_count(GcfObject *self, PyObject *key)
{
    uint64_t h;
    return key_arg(self, key, &h) < 0 ? NULL : count_of(self, h);
}

static PyObject *Gcf_count_hash(GcfObject *self, PyObject *arg)
{
    uint64_t h;
    return flpy_u64_arg(arg, &h, "hash") < 0 ? NULL : count_of(self, h);
}

static PyObject *Gcf_hash(GcfObject *self, PyObject *key)
{
    uint64_t h;
    return key_arg(self, key, &h) < 0 ? NULL : PyLong_FromUnsignedLongLong(h);
}

/* ---- batches -------------------------------------------------------------------------- */

static void hash_strings(const fl_gcf *g, const flpy_keys *k, uint64_t *out)
{
    for (Py_ssize_t i = 0; i < k->n; i++)
        out[i] = fl_gcf_hash_bytes(g, k->ptrs[i], k->lens[i]);
}

/* add_many and delete_many: the batch in order under the write lock, without the GIL; the
 * keys before the one that failed stay changed, and the error says how many. */
static PyObject *change_many(GcfObject *self, PyObject *args, PyObject *kw, int insert)
{
    const char *what = insert ? "add_many" : "delete_many";
    flpy_keys k;
    int as_hashes;
    if (flpy_keys_from_args(args, kw, insert ? "O|$p:add_many" : "O|$p:delete_many", &k,
                            &as_hashes) < 0)
        return NULL;
    uint64_t *tmp = NULL;
    if (k.kind == FLPY_STRINGS && (tmp = flpy_alloc_u64(k.n)) == NULL) {
        flpy_keys_release(&k);
        return NULL;
    }
    size_t done = 0;
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    flpy_write_lock(&self->lock);
    const uint64_t *h = k.u64;
    if (k.kind == FLPY_STRINGS) {
        hash_strings(self->handle, &k, tmp);
        h = tmp;
    }
    if (k.kind == FLPY_STRINGS || as_hashes)
        s = insert ? fl_gcf_insert_hashes(self->handle, h, (size_t)k.n, &done)
                   : fl_gcf_delete_hashes(self->handle, h, (size_t)k.n, &done);
    else
        s = insert ? fl_gcf_insert_u64s(self->handle, k.u64, (size_t)k.n, &done)
                   : fl_gcf_delete_u64s(self->handle, k.u64, (size_t)k.n, &done);
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(tmp);
    flpy_keys_release(&k);
    if (s != FL_OK) {
        /* the exception the status maps to, saying how far the batch got */
        char msg[96];
        snprintf(msg, sizeof msg, "%s (%zu keys of the batch were %s before the failing one)",
                 what, done, insert ? "inserted" : "deleted");
        return flpy_raise(s, msg, NULL);
    }
    Py_RETURN_NONE;
}

static PyObject *Gcf_add_many(GcfObject *self, PyObject *args, PyObject *kw)
{
    return change_many(self, args, kw, 1);
}

static PyObject *Gcf_delete_many(GcfObject *self, PyObject *args, PyObject *kw)
{
    return change_many(self, args, kw, 0);
}

static PyObject *Gcf_contains_many(GcfObject *self, PyObject *args, PyObject *kw)
{
    flpy_batch b;
    int as_hashes;
    if (flpy_batch_from_args(args, kw, "O|$pO:contains_many", NPY_BOOL, 0, &b, &as_hashes) < 0)
        return NULL;
    const flpy_keys *k = &b.keys;
    uint8_t *res = b.out.data;
    fl_status s;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->lock);
    if (k->kind == FLPY_STRINGS) {
        hash_strings(self->handle, k, b.tmp);
        s = fl_gcf_contains_hashes(self->handle, b.tmp, (size_t)k->n, res, NULL);
    } else if (as_hashes) {
        s = fl_gcf_contains_hashes(self->handle, k->u64, (size_t)k->n, res, NULL);
    } else {
        s = fl_gcf_contains_u64s(self->handle, k->u64, (size_t)k->n, res, NULL);
    }
    flpy_unlock(&self->lock);
    Py_END_ALLOW_THREADS
    return flpy_batch_finish(&b, s, "contains_many");
}

/* ---- reports ---------------------------------------------------------------------------- */

static Py_ssize_t Gcf_len(GcfObject *self)
{
    fl_gcf_info in;
    flpy_read_lock_gil(&self->lock);
    fl_gcf_info_get(self->handle, &in);
    flpy_unlock(&self->lock);
    return in.items > PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)in.items;
}

static PyObject *Gcf_info(GcfObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_gcf_info in;
    flpy_read_lock_gil(&self->lock);
    fl_status st = fl_gcf_info_get(self->handle, &in);
    const char *kernel = fl_gcf_kernel(self->handle);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "info", NULL);
    PyObject *by_ext = PyTuple_New(FL_GCF_EXT_BITS + 1);
    for (Py_ssize_t l = 0; by_ext != NULL && l <= (Py_ssize_t)FL_GCF_EXT_BITS; l++) {
        PyObject *v = PyLong_FromUnsignedLongLong(in.items_by_ext[l]);
        if (v == NULL)
            Py_CLEAR(by_ext);
        else
            PyTuple_SET_ITEM(by_ext, l, v);
    }
    if (by_ext == NULL)
        return NULL;
    PyObject *d = Py_BuildValue(
        "{s:K,s:k,s:k,s:k,s:k,s:K,s:K,s:K,s:K,s:K,s:K,s:d,s:d,s:d,s:N,s:K,s:s}",
        "buckets", (unsigned long long)in.buckets, "columns", (unsigned long)in.columns,
        "window_bits", (unsigned long)in.window_bits, "bucket_bits", (unsigned long)in.bucket_bits,
        "doublings", (unsigned long)in.doublings, "bytes", (unsigned long long)in.bytes,
        "seed", (unsigned long long)in.seed, "items", (unsigned long long)in.items,
        "slots", (unsigned long long)in.slots, "capacity", (unsigned long long)in.capacity,
        "max_capacity", (unsigned long long)in.max_capacity, "load", in.load,
        "bits_per_key", in.bits_per_key, "fpr", in.fpr, "items_by_ext", by_ext,
        "byte_limit", (unsigned long long)in.byte_limit, "kernel", kernel);
    return flpy_make_info("GrowingCuckooInfo", d);
}

static PyObject *Gcf_set_byte_limit(GcfObject *self, PyObject *arg)
{
    uint64_t bytes = 0;
    if (arg != Py_None && flpy_u64_arg(arg, &bytes, "byte_limit") < 0)
        return NULL;
    flpy_write_lock_gil(&self->lock);
    fl_status st = fl_gcf_set_byte_limit(self->handle, bytes);
    flpy_unlock(&self->lock);
    if (st != FL_OK)
        return flpy_raise(st, "set_byte_limit", NULL);
    Py_RETURN_NONE;
}

static PyObject *Gcf_get_kernel(GcfObject *self, void *Py_UNUSED(c))
{
    flpy_read_lock_gil(&self->lock);
    const char *k = fl_gcf_kernel(self->handle);
    flpy_unlock(&self->lock);
    return PyUnicode_FromString(k);
}

static PyObject *Gcf_repr(GcfObject *self)
{
    fl_gcf_info in;
    flpy_read_lock_gil(&self->lock);
    fl_gcf_info_get(self->handle, &in);
    flpy_unlock(&self->lock);
    return PyUnicode_FromFormat("<filterlab.GrowingCuckoo: %llu items, %u doublings, %llu bytes>",
                                (unsigned long long)in.items, in.doublings,
                                (unsigned long long)in.bytes);
}

static PyMethodDef Gcf_methods[] = {
    {"add", (PyCFunction)Gcf_add, METH_O,
     "add(key)\n--\n\nInserts one copy of key (bytes, str or int), doubling the table first "
     "when it is full. FullError at the growth limit (128x the first table) or when the key's "
     "two buckets hold 8 copies already; ValueError past the byte limit; nothing changes "
     "then."},
    {"add_hash", (PyCFunction)Gcf_add_hash, METH_O,
     "add_hash(h)\n--\n\nadd() for a precomputed 64-bit hash."},
    {"add_many", (PyCFunction)(void (*)(void))Gcf_add_many, METH_VARARGS | METH_KEYWORDS,
     "add_many(keys, *, hashes=False)\n--\n\nInserts a batch in order (GIL released); on an "
     "error the keys before the failing one stay and the message says how many."},
    {"delete", (PyCFunction)Gcf_delete, METH_O,
     "delete(key)\n--\n\nRemoves one copy of an inserted key (KeyError if no slot matches it). "
     "Delete only keys you inserted: as in any fingerprint filter, another key's copy could "
     "go."},
    {"delete_hash", (PyCFunction)Gcf_delete_hash, METH_O,
     "delete_hash(h)\n--\n\ndelete() for a precomputed 64-bit hash."},
    {"delete_many", (PyCFunction)(void (*)(void))Gcf_delete_many, METH_VARARGS | METH_KEYWORDS,
     "delete_many(keys, *, hashes=False)\n--\n\nDeletes a batch in order; stops at the first "
     "key not found (KeyError saying how many were deleted)."},
    {"contains", (PyCFunction)Gcf_contains, METH_O,
     "contains(key)\n--\n\nTrue if a slot of the key's two buckets matches it."},
    {"contains_hash", (PyCFunction)Gcf_contains_hash, METH_O,
     "contains_hash(h)\n--\n\ncontains() for a precomputed 64-bit hash."},
    {"contains_many", (PyCFunction)(void (*)(void))Gcf_contains_many,
     METH_VARARGS | METH_KEYWORDS,
     "contains_many(keys, *, hashes=False, out=None)\n--\n\nA NumPy bool array (or out, "
     "filled in place); GIL released, the filter's kernel."},
    {"count", (PyCFunction)Gcf_count, METH_O,
     "count(key) -> int\n--\n\nThe slots of the key's two buckets that match it (0..8; "
     "RedisBloom's CF.COUNT): never below the copies inserted and not deleted."},
    {"count_hash", (PyCFunction)Gcf_count_hash, METH_O,
     "count_hash(h) -> int\n--\n\ncount() for a precomputed 64-bit hash."},
    {"hash", (PyCFunction)Gcf_hash, METH_O, "hash(key)\n--\n\nThe filter's 64-bit hash of key."},
    FLPY_CLEAR_METHOD("clear()\n--\n\nRemoves every key; keeps the table's size, seed, byte "
                      "limit and kernel."),
    FLPY_FILE_METHODS(Gcf,
      "to_bytes()\n--\n\nThe filter in the filterlab file format.",
      "from_bytes(data, max_bytes=0)\n--\n\nA filter from filterlab-format bytes (FormatError "
      "if bad or of another kind: every slot is checked). max_bytes (0: none) caps the table "
      "the load allocates and becomes the filter's byte limit: give one for untrusted data.",
      "save(path)\n--\n\nWrites the filter atomically (the CLI's gcf-* commands read it).",
      "load(path, max_bytes=0)\n--\n\nReads a filter file; max_bytes as in from_bytes."),
    {"set_byte_limit", (PyCFunction)Gcf_set_byte_limit, METH_O,
     "set_byte_limit(n)\n--\n\nCaps the table bytes a doubling may reach (0 or None: none); "
     "a doubling past it is refused (ValueError once the table is full). Not saved, "
     "pickled or copied; a load sets it to its max_bytes."},
    {"info", (PyCFunction)Gcf_info, METH_NOARGS,
     "info()\n--\n\nA GrowingCuckooInfo dataclass (fl_gcf_info_get)."},
    FLPY_BIND_KERNEL_METHOD(
      "bind_kernel(name)\n--\n\nBinds the filter's batch lookups to a kernel; None or 'auto' "
      "unbinds."),
    FLPY_REDUCE_METHOD_AND_END,
};

static PyGetSetDef Gcf_getset[] = {
    {"kernel", (getter)Gcf_get_kernel, NULL, "The kernel the filter's batches use.", NULL},
    FLPY_BOUND_KERNEL_GETTER("The kernel bound, or None."),
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Gcf_as_sequence = {
    .sq_length = (lenfunc)Gcf_len,
    .sq_contains = (objobjproc)Gcf_sq_contains,
};

static PyTypeObject Gcf_Type = {
    FLPY_TYPE_FIELDS(Gcf, GcfObject, "GrowingCuckoo"),
    .tp_as_sequence = &Gcf_as_sequence,
    .tp_doc = "GrowingCuckoo(capacity, *, seed=0, max_bytes=0)\n--\n\n"
              "A cuckoo filter of 16-bit slots that doubles its table in place (up to 7 "
              "times, 128x) as keys arrive, with deletes and counts; lookups cost one probe "
              "of two buckets at every size. capacity: keys before the first doubling; "
              "max_bytes (0: none): the byte limit of the table. len() is the slots "
              "occupied (copies count).",
    .tp_getset = Gcf_getset,
};

FLPY_DEFINE_ADD(gcf, Gcf)
