/*
 * Layered Bloom filter internals shared by src/layered/layered.c (the layers, counts, adds) and
 * src/layered/codec_layered.c (its file codec). Not installed.
 */
#ifndef FL_LAYERED_INTERNAL_H
#define FL_LAYERED_INTERNAL_H

#include "core/internal.h"

#pragma GCC visibility push(hidden)

struct fl_lbf {
    /* Parameters as normalised by fl_lbf_params (defaults filled in, hash resolved) and the
     * counters, as fl_lbf_get_info reports them (its bytes and can_delete are computed
     * there). p.geometry is every layer's: the variant's sizing for capacity at fpr when
     * created; a loaded filter keeps the file's (sizing may change between versions, a
     * file's geometry does not). */
    fl_lbf_info p;
    /* layer[0 .. p.layers), all of p.geometry, with the filter's hash and seed */
    fl_filter **layer;
};

/* Validates and normalises a configuration into the parameter fields of *l (geometry
 * included; no layers allocated). */
fl_status fl_lbf_params(const fl_lbf_config *cfg, fl_lbf *l);
/* The same without the geometry (left zero), for the loader, which takes the geometry from
 * the file through fl_lbf_set_geometry instead of re-running the sizing search (tens of ms
 * for blocked variants, and a file must not depend on the sizing model of the version
 * that reads it). */
fl_status fl_lbf_params_unsized(const fl_lbf_config *cfg, fl_lbf *l);
/* Every layer's geometry: of l's variant, valid, and R of them fit in size_t. */
fl_status fl_lbf_set_geometry(fl_lbf *l, const fl_geometry *g);
/* A filter for the parameters in *params with an empty layer array (layers NULL). */
fl_status fl_lbf_alloc(const fl_lbf *params, fl_lbf **out);

#pragma GCC visibility pop

#endif
