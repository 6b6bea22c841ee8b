/*
 * filterlab.CompressedBloom: a Bloom filter stored in independently compressed chunks
 * (Mitzenmacher, "Compressed Bloom Filters", 2002; seed 004, 4.11.4;
 * include/filterlab_compressed.h). It answers lookups only, decoding the chunks they need;
 * adds go to a Filter that is compressed again. Int keys are hashed as Filter hashes them
 * (fl_hash_u64 with the seed), so every key answers as in the source Filter.
 */
#include "object.h"

#include <string.h>

/* handle: the fl_cbf. */
typedef flpy_seeded_object CompressedObject;

static PyTypeObject Compressed_Type;

/* ---- the library calls the shared methods use (object.h) ------------------------------ */

FLPY_DEFINE_FORMAT_CALLS(cbf, fl_cbf, fl_cbf)

FLPY_DEFINE_SEED_INIT(cbf, fl_cbf_info, fl_cbf_get_info)

/* Read-only: no clear, merge or kernel binding (a lookup runs the one-unit probe on the
 * chunk it decodes). Copies go through the file format, which is exact. */
static const flpy_ops cbf_ops = {
    .class_name = "CompressedBloom",
    .type = &Compressed_Type,
    FLPY_FORMAT_OPS(cbf),
    .init = cbf_init,
};

FLPY_DEFINE_BYTES_AND_FILE_CLASSMETHODS(Compressed, cbf_ops)

static uint64_t hash_bytes(const void *obj, const void *key, size_t len)
{
    return fl_cbf_hash_bytes(obj, key, len);
}

static int parse_coder(const char *name, fl_coder *out)
{
    if (fl_coder_parse(name, out) == FL_OK)
        return 0;
    PyErr_Format(PyExc_ValueError, "unknown coder '%s' (coders: %s, %s)", name,
                 fl_coder_name(FL_CODER_GOLOMB), fl_coder_name(FL_CODER_ZSTD));
    return -1;
}

static PyObject *Compressed_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"filter", "coder", "chunk_bytes", NULL};
    PyObject *filter_obj, *chunk_obj = NULL;
    const char *coder_name = fl_coder_name(FL_CODER_DEFAULT);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|sO:CompressedBloom", kwlist,
                                     flpy_filter_type(), &filter_obj, &coder_name, &chunk_obj))
        return NULL;
    fl_coder coder;
    uint64_t chunk = 0;
    if (parse_coder(coder_name, &coder) < 0 ||
        (chunk_obj != NULL && chunk_obj != Py_None &&
         flpy_u64_arg(chunk_obj, &chunk, "chunk_bytes") < 0))
        return NULL;
    if (chunk > FL_CBF_CHUNK_MAX || chunk % 64 != 0) {
        PyErr_Format(PyExc_ValueError,
                     "chunk_bytes must be a multiple of 64 up to %u (0: the default, %u)",
                     FL_CBF_CHUNK_MAX, FL_CBF_CHUNK_DEFAULT);
        return NULL;
    }
    flpy_object *src = (flpy_object *)filter_obj;
    fl_cbf *c = NULL;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&src->lock);
    st = fl_cbf_compress(src->handle, coder, (uint32_t)chunk, &c);
    flpy_unlock(&src->lock);
    Py_END_ALLOW_THREADS
    if (st == FL_ERR_UNSUPPORTED) {
        PyErr_SetString(PyExc_ValueError,
                        "CompressedBloom: only Bloom bit-array filters compress (classic, "
                        "block512, split256, reg64; not counting or cuckoo)");
        return NULL;
    }
    if (st != FL_OK)
        return flpy_raise(st, "CompressedBloom", NULL);
    return flpy_wrap(type, &cbf_ops, c);
}

/* ---- sizing (Mitzenmacher 2002, section III) ------------------------------------------ */

static PyObject *plan_object(const fl_cbf_plan *p)
{
    PyObject *d = Py_BuildValue("{s:K,s:d,s:d,s:d}",
                                "bits", (unsigned long long)p->bits,
                                "zero_fraction", (double)p->zero_fraction,
                                "entropy_bits", (double)p->entropy_bits,
                                "fpr", (double)p->fpr);
    return flpy_make_info("CompressedPlan", flpy_with_geometry(d, &p->geometry));
}

/* plan_for_bits and plan_for_fpr: the same arguments but the third (z_bits, an int, or
 * fpr, a float) and the library call. */
static PyObject *plan(PyObject *args, PyObject *kw, int by_fpr)
{
    static char *bits_kwlist[] = {"variant", "n", "z_bits", "m_max_bits", NULL};
    static char *fpr_kwlist[] = {"variant", "n", "fpr", "m_max_bits", NULL};
    const char *variant;
    PyObject *n_obj, *z_obj = NULL, *m_obj;
    double fpr = 0.0;
    if (!(by_fpr ? PyArg_ParseTupleAndKeywords(args, kw, "sOdO:plan_for_fpr", fpr_kwlist,
                                               &variant, &n_obj, &fpr, &m_obj)
                 : PyArg_ParseTupleAndKeywords(args, kw, "sOOO:plan_for_bits", bits_kwlist,
                                               &variant, &n_obj, &z_obj, &m_obj)))
        return NULL;
    fl_variant v;
    if (fl_variant_parse(variant, &v) != FL_OK) {
        PyErr_Format(PyExc_ValueError, "unknown variant '%s'", variant);
        return NULL;
    }
    uint64_t n, z = 0, m_max;
    if (flpy_u64_arg(n_obj, &n, "n") < 0 || flpy_u64_arg(m_obj, &m_max, "m_max_bits") < 0 ||
        (!by_fpr && flpy_u64_arg(z_obj, &z, "z_bits") < 0))
        return NULL;
    fl_cbf_plan p;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    st = by_fpr ? fl_cbf_plan_for_fpr(v, n, fpr, m_max, &p)
                : fl_cbf_plan_for_bits(v, n, z, m_max, &p);
    Py_END_ALLOW_THREADS
    if (st != FL_OK)
        return flpy_raise(st, by_fpr ? "plan_for_fpr" : "plan_for_bits", NULL);
    return plan_object(&p);
}

static PyObject *Compressed_plan_for_bits(PyObject *Py_UNUSED(cls), PyObject *args,
                                          PyObject *kw)
{
    return plan(args, kw, 0);
}

static PyObject *Compressed_plan_for_fpr(PyObject *Py_UNUSED(cls), PyObject *args,
                                         PyObject *kw)
{
    return plan(args, kw, 1);
}

static PyObject *Compressed_entropy(PyObject *Py_UNUSED(cls), PyObject *arg)
{
    double p = PyFloat_AsDouble(arg);
    if (p == -1.0 && PyErr_Occurred())
        return NULL;
    if (!(p >= 0.0 && p <= 1.0)) {
        PyErr_SetString(PyExc_ValueError, "entropy: p must be in [0, 1]");
        return NULL;
    }
    return PyFloat_FromDouble(fl_cbf_entropy(p));
}

/* ---- lookups -------------------------------------------------------------------------- */

/* Names a failed lookup in its error: a classic filter gets the reason in words. */
#define CLASSIC_HINT " (a classic filter spreads a key over every chunk: decompress() it)"
static PyObject *lookup_error(fl_status st, const char *what)
{
    char buf[160];
    if (st == FL_ERR_UNSUPPORTED) {
        snprintf(buf, sizeof buf, "%s%s", what, CLASSIC_HINT);
        what = buf;
    }
    return flpy_raise(st, what, NULL);
}

static PyObject *contains_hash_value(CompressedObject *self, uint64_t h, const char *what)
{
    int found = 0;
    fl_status st;
    /* A lookup decodes a chunk (up to chunk_bytes of work): without the GIL. */
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->base.lock);
    st = fl_cbf_contains_hash(self->base.handle, h, &found);
    flpy_unlock(&self->base.lock);
    Py_END_ALLOW_THREADS
    if (st != FL_OK)
        return lookup_error(st, what);
    return PyBool_FromLong(found);
}

static int key_hash(CompressedObject *self, PyObject *key, uint64_t *h)
{
    flpy_key k;
    if (flpy_key_get(key, &k) < 0)
        return -1;
    *h = k.is_int ? fl_hash_u64(k.u64, self->seed)
                  : fl_cbf_hash_bytes(self->base.handle, k.data, k.len);
    flpy_key_release(&k);
    return 0;
}

static PyObject *Compressed_contains(CompressedObject *self, PyObject *key)
{
    uint64_t h;
    return key_hash(self, key, &h) < 0 ? NULL : contains_hash_value(self, h, "contains");
}

static int Compressed_sq_contains(CompressedObject *self, PyObject *key)
{
    PyObject *r = Compressed_contains(self, key);
    if (r == NULL)
        return -1;
    int found = r == Py_True;
    Py_DECREF(r);
    return found;
}

static PyObject *Compressed_contains_hash(CompressedObject *self, PyObject *arg)
{
    uint64_t h;
    if (flpy_u64_arg(arg, &h, "hash") < 0)
        return NULL;
    return contains_hash_value(self, h, "contains_hash");
}

static PyObject *Compressed_hash(CompressedObject *self, PyObject *key)
{
    uint64_t h;
    if (key_hash(self, key, &h) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(h);
}

static fl_status contains_hashes(void *c, const uint64_t *h, size_t n, uint8_t *out)
{
    return fl_cbf_contains_hashes(c, h, n, out, NULL, NULL);
}

static PyObject *Compressed_contains_many(CompressedObject *self, PyObject *args, PyObject *kw)
{
    return flpy_seeded_batch(self, args, kw, "O|$pO:contains_many", 0, hash_bytes,
                             contains_hashes, "contains_many", "contains_many" CLASSIC_HINT);
}

/* ---- whole filter --------------------------------------------------------------------- */

static PyObject *Compressed_decompress(CompressedObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_filter *f = NULL;
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->base.lock);
    st = fl_cbf_decompress(self->base.handle, &f);
    flpy_unlock(&self->base.lock);
    Py_END_ALLOW_THREADS
    if (st != FL_OK)
        return flpy_raise(st, "decompress", NULL);
    return flpy_filter_wrap(f);
}

static PyObject *Compressed_verify(CompressedObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_status st;
    Py_BEGIN_ALLOW_THREADS
    flpy_read_lock(&self->base.lock);
    st = fl_cbf_verify(self->base.handle);
    flpy_unlock(&self->base.lock);
    Py_END_ALLOW_THREADS
    if (st != FL_OK)
        return flpy_raise(st, "verify", NULL);
    Py_RETURN_NONE;
}

static PyObject *Compressed_info(CompressedObject *self, PyObject *Py_UNUSED(ignored))
{
    fl_cbf_info in;
    flpy_read_lock_gil(&self->base.lock);
    fl_status st = fl_cbf_get_info(self->base.handle, &in);
    flpy_unlock(&self->base.lock);
    if (st != FL_OK)
        return flpy_raise(st, "info", NULL);
    const char *coder = fl_coder_name(in.coder);
    PyObject *d = Py_BuildValue("{s:s,s:K,s:K,s:s,s:k,s:K,s:K,s:K,s:K,s:K,s:d}",
                                "hash", in.hash == FL_HASH_XXH64 ? "xxh64" : "xxh3",
                                "seed", (unsigned long long)in.seed,
                                "keys", (unsigned long long)in.keys,
                                "coder", coder ? coder : "unknown",
                                "chunk_bytes", (unsigned long)in.chunk_bytes,
                                "chunks", (unsigned long long)in.chunks,
                                "payload_bytes", (unsigned long long)in.payload_bytes,
                                "compressed_bytes", (unsigned long long)in.compressed_bytes,
                                "index_bytes", (unsigned long long)in.index_bytes,
                                "ones", (unsigned long long)in.ones,
                                "entropy_bits", (double)in.entropy_bits);
    return flpy_make_info("CompressedBloomInfo", flpy_with_geometry(d, &in.geometry));
}

static PyObject *Compressed_get_seed(CompressedObject *self, void *Py_UNUSED(c))
{
    return PyLong_FromUnsignedLongLong(self->seed);
}

static PyObject *Compressed_repr(CompressedObject *self)
{
    fl_cbf_info in;
    fl_cbf_get_info(self->base.handle, &in); /* immutable: no lock needed */
    const char *coder = fl_coder_name(in.coder);
    return PyUnicode_FromFormat("<filterlab.CompressedBloom %s, %s: %llu chunks, %zu of %zu "
                                "bytes>",
                                fl_variant_name(in.geometry.variant), coder ? coder : "?",
                                (unsigned long long)in.chunks,
                                in.compressed_bytes + in.index_bytes, in.payload_bytes);
}

static PyMethodDef Compressed_methods[] = {
    {"contains", (PyCFunction)Compressed_contains, METH_O,
     "contains(key) -> bool\n--\n\nThe source Filter's answer for key, decoding only the "
     "chunk that holds its unit. ValueError for a classic filter (decompress() it)."},
    {"contains_hash", (PyCFunction)Compressed_contains_hash, METH_O,
     "contains_hash(h) -> bool\n--\n\ncontains() for a precomputed 64-bit hash."},
    {"contains_many", (PyCFunction)(void (*)(void))Compressed_contains_many,
     METH_VARARGS | METH_KEYWORDS,
     "contains_many(keys, *, hashes=False, out=None)\n--\n\nA NumPy bool array (or out, "
     "filled in place): keys grouped by chunk, each needed chunk decoded once; GIL "
     "released."},
    {"hash", (PyCFunction)Compressed_hash, METH_O,
     "hash(key)\n--\n\nThe filter's 64-bit hash of key (the same as the source Filter's)."},
    {"decompress", (PyCFunction)Compressed_decompress, METH_NOARGS,
     "decompress() -> Filter\n--\n\nThe filter, decompressed whole and checked (FormatError "
     "if a chunk does not decode)."},
    {"verify", (PyCFunction)Compressed_verify, METH_NOARGS,
     "verify()\n--\n\nDecodes every chunk once; FormatError if one does not decode. (A load "
     "checks the container and index; chunks are decoded when a lookup needs them.)"},
    {"plan_for_bits", (PyCFunction)(void (*)(void))Compressed_plan_for_bits,
     METH_VARARGS | METH_KEYWORDS | METH_STATIC,
     "plan_for_bits(variant, n, z_bits, m_max_bits) -> CompressedPlan\n--\n\nThe geometry "
     "with the least FPR for n keys whose compressed size m*H(p) is at most z_bits, with at "
     "most m_max_bits uncompressed (Mitzenmacher 2002). Filter(variant=plan.variant, "
     "units=plan.units, k=plan.k) builds it."},
    {"plan_for_fpr", (PyCFunction)(void (*)(void))Compressed_plan_for_fpr,
     METH_VARARGS | METH_KEYWORDS | METH_STATIC,
     "plan_for_fpr(variant, n, fpr, m_max_bits) -> CompressedPlan\n--\n\nThe geometry with "
     "the least compressed size m*H(p) for n keys at FPR <= fpr, at most m_max_bits "
     "uncompressed."},
    {"entropy", (PyCFunction)Compressed_entropy, METH_O | METH_STATIC,
     "entropy(p) -> float\n--\n\nBinary entropy H(p) in bits."},
    FLPY_COPY_METHOD("copy()\n--\n\nAn independent copy."),
    FLPY_FILE_METHODS(Compressed,
      "to_bytes()\n--\n\nThe compressed filter in the filterlab file format (container kind "
      "8).",
      "from_bytes(data, max_bytes=0)\n--\n\nA compressed filter from filterlab-format bytes "
      "(FormatError if bad or of another kind; max_bytes caps the uncompressed payload).",
      "save(path)\n--\n\nWrites the file atomically.",
      "load(path, max_bytes=0)\n--\n\nReads a compressed filter file (CLI `compress` writes "
      "them)."),
    {"info", (PyCFunction)Compressed_info, METH_NOARGS,
     "info()\n--\n\nA CompressedBloomInfo dataclass: sizes, coder, chunks, set bits and the "
     "entropy bound."},
    FLPY_REDUCE_METHOD_AND_END,
};

static PyGetSetDef Compressed_getset[] = {
    {"seed", (getter)Compressed_get_seed, NULL, "The hash seed (the source Filter's).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Compressed_as_sequence = {
    .sq_contains = (objobjproc)Compressed_sq_contains,
};

static PyTypeObject Compressed_Type = {
    FLPY_TYPE_FIELDS(Compressed, CompressedObject, "CompressedBloom"),
    .tp_as_sequence = &Compressed_as_sequence,
    .tp_doc = "CompressedBloom(filter, coder='golomb', chunk_bytes=0)\n--\n\n"
              "A Bloom Filter (classic, block512, split256, reg64) compressed in chunks of "
              "chunk_bytes (a multiple of 64; 0: 4096) with the 'golomb' (Golomb-Rice codes "
              "of the gaps between set bits) or 'zstd' coder (Mitzenmacher 2002). Lookups "
              "decode only the chunks they need and answer exactly as the Filter did; it "
              "takes no adds (add to a Filter and compress it again).",
    .tp_getset = Compressed_getset,
};

FLPY_DEFINE_ADD(compressed, Compressed)
