/*
 * filterlab._filterlab: the module (exceptions, process-wide kernel choice, hashing helpers)
 * and the classes of FLPY_CLASSES (common.h), each in its own file python/src/<structure>.c.
 */
#define FLPY_MODULE_C
#include "keys.h"

#include <string.h>

/* The classes of FLPY_CLASSES (common.h), added in that order. */
#define FLPY_ADD_ENTRY(name) flpy_add_##name,
static int (*const flpy_classes[])(PyObject *) = {FLPY_CLASSES(FLPY_ADD_ENTRY)};
#undef FLPY_ADD_ENTRY

/* Appends CLS(**kw) (filterlab._info) to list; kw is NULL when building it failed. Takes kw
 * over; returns -1 with an exception set on failure. */
static int append_info(PyObject *list, const char *cls, PyObject *kw)
{
    PyObject *info = flpy_make_info(cls, kw);
    int r = info == NULL ? -1 : PyList_Append(list, info);
    Py_XDECREF(info);
    return r;
}

static PyObject *kernels(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    size_t n = fl_kernel_count();
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list != NULL && i < n; i++) {
        fl_kernel_desc d;
        if (fl_kernel_describe(i, &d) != FL_OK)
            continue;
        PyObject *kw = Py_BuildValue("{s:s,s:N,s:N,s:N,s:s}", "name", d.name,
                                     "compiled", PyBool_FromLong(d.compiled),
                                     "supported", PyBool_FromLong(d.supported),
                                     "emulated", PyBool_FromLong(d.emulated),
                                     "requires", d.requires ? d.requires : "");
        if (append_info(list, "KernelInfo", kw) < 0) {
            Py_CLEAR(list);
            break;
        }
    }
    return list;
}

static PyObject *select_kernel(PyObject *Py_UNUSED(m), PyObject *arg)
{
    const char *name;
    if (flpy_kernel_name(arg, &name) < 0)
        return NULL;
    if (name == NULL) {
        PyErr_SetString(PyExc_TypeError, "select_kernel takes a kernel name");
        return NULL;
    }
    fl_status s = fl_kernel_select(name);
    if (s != FL_OK)
        return flpy_raise(s, "select_kernel", NULL);
    Py_RETURN_NONE;
}

static PyObject *active_kernel(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    return PyUnicode_FromString(fl_kernel_active()); /* "auto": see kernel_choices() */
}

static PyObject *kernel_reason(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    return PyUnicode_FromString(fl_kernel_reason());
}

/* Every module entry at every size class: KernelChoice(entry, size_class, kernel, reason). */
static PyObject *kernel_choices(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
    for (size_t e = 0; list != NULL && e < fl_kernel_entry_count(); e++) {
        const char *entry = fl_kernel_entry_name(e);
        for (int c = 0; c < FL_SIZE_CLASSES; c++) {
            const char *kernel, *reason;
            if (fl_kernel_choice(entry, c, &kernel, &reason) != FL_OK)
                continue;
            PyObject *kw = Py_BuildValue("{s:s,s:s,s:s,s:s}", "entry", entry,
                                         "size_class", fl_size_class_name(c),
                                         "kernel", kernel, "reason", reason);
            if (append_info(list, "KernelChoice", kw) < 0) {
                Py_CLEAR(list);
                break;
            }
        }
    }
    return list;
}

static PyObject *kernel_wisdom(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(ss)", fl_kernel_wisdom_path(), fl_kernel_wisdom_status());
}

static PyObject *hash_u64(PyObject *Py_UNUSED(m), PyObject *args)
{
    PyObject *key_obj, *seed_obj = NULL;
    if (!PyArg_ParseTuple(args, "O|O:hash_u64", &key_obj, &seed_obj))
        return NULL;
    uint64_t key, seed = 0;
    if (flpy_u64_arg(key_obj, &key, "key") < 0 ||
        (seed_obj != NULL && flpy_u64_arg(seed_obj, &seed, "seed") < 0))
        return NULL;
    return PyLong_FromUnsignedLongLong(fl_hash_u64(key, seed));
}

static PyObject *params(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"n", "fpr", "variant", NULL};
    PyObject *n_obj;
    double fpr;
    const char *name = "block512";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Od|s:params", kwlist, &n_obj, &fpr, &name))
        return NULL;
    uint64_t n;
    fl_variant v;
    if (flpy_u64_arg(n_obj, &n, "n") < 0)
        return NULL;
    if (fl_variant_parse(name, &v) != FL_OK) {
        PyErr_Format(PyExc_ValueError, "unknown variant '%s'", name);
        return NULL;
    }
    fl_params p;
    fl_status s = fl_params_for(v, n, fpr, &p);
    if (s != FL_OK)
        return flpy_raise(s, "params", NULL);
    PyObject *d = Py_BuildValue("{s:K,s:K,s:d,s:d}",
                                "bits", (unsigned long long)p.bits,
                                "bytes", (unsigned long long)p.bytes,
                                "bits_per_key", (double)p.bits_per_key,
                                "predicted_fpr", (double)p.predicted_fpr);
    return flpy_make_info("Params", flpy_with_geometry(d, &p.geometry));
}

static PyMethodDef module_methods[] = {
    {"kernels", kernels, METH_NOARGS,
     "kernels()\n--\n\nThe compiled kernels as KernelInfo dataclasses (name, supported, ...)."},
    {"select_kernel", select_kernel, METH_O,
     "select_kernel(name)\n--\n\nForces a kernel for the whole process (like FILTERLAB_KERNEL); "
     "ValueError if unknown or not runnable here. Objects bound with bind_kernel keep theirs."},
    {"active_kernel", active_kernel, METH_NOARGS,
     "active_kernel()\n--\n\nThe process's kernel."},
    {"kernel_reason", kernel_reason, METH_NOARGS,
     "kernel_reason()\n--\n\nWhy the process's kernel was chosen."},
    {"kernel_choices", kernel_choices, METH_NOARGS,
     "kernel_choices()\n--\n\nFor every kernel module entry and payload size class, the kernel "
     "used and why, as KernelChoice dataclasses (entry, size_class, kernel, reason)."},
    {"kernel_wisdom", kernel_wisdom, METH_NOARGS,
     "kernel_wisdom()\n--\n\n(path, status) of the wisdom file `filterlab tune` writes; path "
     "is '' when disabled."},
    {"hash_u64", hash_u64, METH_VARARGS,
     "hash_u64(key, seed=0)\n--\n\nThe library's hash of an integer key (SplitMix64 finalizer "
     "of key + seed * 0x9e3779b97f4a7c15): what Filter and CountMin use for int keys."},
    {"params", (PyCFunction)(void (*)(void))params, METH_VARARGS | METH_KEYWORDS,
     "params(n, fpr, variant='block512')\n--\n\nThe geometry the library picks for n keys at "
     "fpr, as a Params dataclass (bytes, bits per key, predicted FPR)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "filterlab._filterlab",
    .m_doc = "filterlab's C extension; import filterlab, not this module.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__filterlab(void)
{
    import_array();
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    flpy_FormatError = PyErr_NewExceptionWithDoc(
        "filterlab.FormatError",
        "Bytes or a file that are not a valid filterlab file, Parquet bitset or Redis "
        "HyperLogLog string (bad magic, version, checksum, truncated, ...).",
        PyExc_ValueError, NULL);
    flpy_FullError = PyErr_NewExceptionWithDoc(
        "filterlab.FullError",
        "A structure with no room for a key (a cuckoo filter, a non-scaling ScalableBloom).",
        PyExc_RuntimeError, NULL);
    flpy_BuildError = PyErr_NewExceptionWithDoc(
        "filterlab.BuildError",
        "A static structure (FuseFilter, Bloomier) whose construction failed for every seed "
        "tried (max_tries): raise max_tries or try another seed.",
        PyExc_RuntimeError, NULL);
    if (flpy_FormatError == NULL || flpy_FullError == NULL || flpy_BuildError == NULL ||
        PyModule_AddObjectRef(m, "FormatError", flpy_FormatError) < 0 ||
        PyModule_AddObjectRef(m, "FullError", flpy_FullError) < 0 ||
        PyModule_AddObjectRef(m, "BuildError", flpy_BuildError) < 0)
        goto fail;
    for (size_t i = 0; i < sizeof flpy_classes / sizeof flpy_classes[0]; i++)
        if (flpy_classes[i](m) < 0)
            goto fail;
    PyObject *version = PyUnicode_FromFormat("%d.%d.%d", FL_VERSION_MAJOR, FL_VERSION_MINOR,
                                             FL_VERSION_PATCH);
    if (version == NULL || PyModule_AddObject(m, "library_version", version) < 0) {
        Py_XDECREF(version);
        goto fail;
    }
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
