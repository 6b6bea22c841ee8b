/*
 * Layered Bloom filter internals shared by src/layered.c (the layers, counts, adds) and
 * src/codec_layered.c (its file codec). Not installed.
 */
#ifndef FL_LAYERED_INTERNAL_H
#define FL_LAYERED_INTERNAL_H

#include "internal.h"

#pragma GCC visibility push(hidden)

struct fl_lbf {
    /* Parameters as normalised by fl_lbf_params (defaults filled in, hash resolved). */
    uint32_t layers;
    uint64_t capacity;
    double fpr;
    fl_variant variant;
    fl_hash_id hash;
    uint64_t seed;
    fl_geometry geometry; /* every layer's: the variant's sizing for capacity at fpr */
    /* layer[0 .. layers), all of `geometry`, with the filter's hash and seed */
    fl_filter **layer;
    uint64_t adds, deletes;
};

/* Validates and normalises a configuration into the parameter fields of *l (geometry
 * included; no layers allocated). */
fl_status fl_lbf_params(const fl_lbf_config *cfg, fl_lbf *l);
/* A filter for the parameters in *params with an empty layer array (layers NULL). */
fl_status fl_lbf_alloc(const fl_lbf *params, fl_lbf **out);

#pragma GCC visibility pop

#endif
