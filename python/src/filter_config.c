/*
 * filterlab.Filter's constructor arguments: Filter(n, fpr, variant, *, units, k, hash, seed,
 * huge_pages) to an fl_config, sized for n keys at fpr or given an explicit geometry, with
 * the errors that name the valid variants and k values.
 */
#include "keys.h"

#include <string.h>

static int parse_variant(const char *name, fl_variant *v)
{
    if (fl_variant_parse(name, v) == FL_OK)
        return 0;
    PyObject *names = PyUnicode_FromString("");
    for (int i = FL_VARIANT_MIN; names && i <= FL_VARIANT_MAX; i++) {
        PyObject *s = PyUnicode_FromFormat("%U%s%s", names, i > FL_VARIANT_MIN ? ", " : "",
                                           fl_variant_name((fl_variant)i));
        Py_SETREF(names, s);
    }
    if (names != NULL) {
        PyErr_Format(PyExc_ValueError, "unknown variant '%s' (variants: %U)", name, names);
        Py_DECREF(names);
    }
    return -1;
}

int flpy_filter_config(PyObject *args, PyObject *kw, fl_config *cfg)
{
    static char *kwlist[] = {"n", "fpr", "variant", "units", "k", "hash", "seed",
                             "huge_pages", NULL};
    PyObject *n_obj = Py_None, *fpr_obj = Py_None, *units_obj = Py_None, *k_obj = Py_None;
    PyObject *hash_obj = Py_None, *seed_obj = NULL;
    const char *variant_name = "block512";
    int huge_pages = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOs$OOOOp:Filter", kwlist, &n_obj, &fpr_obj,
                                     &variant_name, &units_obj, &k_obj, &hash_obj, &seed_obj,
                                     &huge_pages))
        return -1;
    memset(cfg, 0, sizeof *cfg);
    if (parse_variant(variant_name, &cfg->variant) < 0 ||
        flpy_parse_hash(hash_obj, &cfg->hash) < 0)
        return -1;
    if (seed_obj != NULL && flpy_u64_arg(seed_obj, &cfg->seed, "seed") < 0)
        return -1;
    cfg->flags = huge_pages ? 0 : FL_FLAG_NO_HUGE_PAGES;
    if (units_obj != Py_None) {
        if (fpr_obj != Py_None) {
            PyErr_SetString(PyExc_ValueError,
                            "give either n and fpr (sizing) or units and k (geometry)");
            return -1;
        }
        fl_variant_info vi;
        fl_variant_describe(cfg->variant, &vi);
        uint64_t k = vi.k_default;
        if (flpy_u64_arg(units_obj, &cfg->geometry.units, "units") < 0 ||
            (k_obj != Py_None && flpy_u64_arg(k_obj, &k, "k") < 0))
            return -1;
        if (cfg->geometry.units == 0) {
            PyErr_SetString(PyExc_ValueError, "units must be at least 1");
            return -1;
        }
        if (k > UINT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "k is out of range");
            return -1;
        }
        if (!fl_variant_unit_bytes(cfg->variant, (uint32_t)k)) {
            /* Name the valid values: a cuckoo width is one of a few, not a range. */
            char valid[64];
            fl_variant_k_text(cfg->variant, valid, sizeof valid);
            PyErr_Format(PyExc_ValueError, "k=%llu is not valid for %s: %s must be %s",
                         (unsigned long long)k, fl_variant_name(cfg->variant), vi.k_name, valid);
            return -1;
        }
        cfg->geometry.variant = cfg->variant;
        cfg->geometry.k = (uint32_t)k;
    } else {
        if (n_obj == Py_None || fpr_obj == Py_None) {
            PyErr_SetString(PyExc_ValueError,
                            "Filter needs n and fpr, or units (and k) for an explicit geometry");
            return -1;
        }
        if (k_obj != Py_None) {
            PyErr_SetString(PyExc_ValueError, "k goes with units, not with n and fpr");
            return -1;
        }
        if (flpy_u64_arg(n_obj, &cfg->n, "n") < 0)
            return -1;
        cfg->fpr = PyFloat_AsDouble(fpr_obj);
        if (cfg->fpr == -1.0 && PyErr_Occurred())
            return -1;
    }
    return 0;
}
