/*
 * HyperLogLog sketches: lifecycle, adds, the estimate, merge, info and kernel binding.
 * Redis's sparse encoding is in hll_sparse.c, its string format in hll_redis.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hll/hll_internal.h"

/* Batch size of the integer-key path: hashes go through a stack buffer this long. */
#define HLL_CHUNK 256

fl_status fl_hll_new(uint32_t p, fl_hll **out) {
    if (p < FL_HLL_P_MIN || p > FL_HLL_P_MAX) return FL_ERR_BAD_PRECISION;
    fl_hll *h = calloc(1, sizeof *h);
    if (!h) return FL_ERR_NO_MEMORY;
    h->p = p;
    h->m = 1u << p;
    h->sparse_max = FL_HLL_SPARSE_MAX_DEFAULT;
    *out = h;
    return FL_OK;
}

fl_status fl_hll_alloc_regs(fl_hll *h) {
    size_t bytes = ((size_t)h->m + FL_HLL_REG_PAD + 63) & ~(size_t)63;
    uint8_t *r = aligned_alloc(64, bytes);
    if (!r) return FL_ERR_NO_MEMORY;
    memset(r, 0, bytes);
    free(h->regs);
    h->regs = r;
    return FL_OK;
}

/* The state PFADD gives a new key: empty, sparse at p = 14, cached count marked stale. */
static fl_status make_empty(fl_hll *h) {
    free(h->regs);
    free(h->sp);
    h->regs = h->sp = NULL;
    h->sp_len = h->sp_cap = 0;
    memset(h->card, 0, sizeof h->card);
    memset(h->unused, 0, sizeof h->unused);
    fl_hll_invalidate(h);
    if (h->p == FL_HLL_REDIS_P) {
        h->enc = FL_HLL_SPARSE;
        return fl_hll_sparse_init(h);
    }
    h->enc = FL_HLL_DENSE;
    return fl_hll_alloc_regs(h);
}

fl_status fl_hll_create(uint32_t p, fl_hll **out) {
    if (!out) return FL_ERR_INVALID_ARG;
    fl_hll *h;
    fl_status s = fl_hll_new(p, &h);
    if (s != FL_OK) return s;
    s = make_empty(h);
    if (s != FL_OK) {
        fl_hll_free(h);
        return s;
    }
    *out = h;
    return FL_OK;
}

void fl_hll_free(fl_hll *h) {
    if (!h) return;
    free(h->regs);
    free(h->sp);
    free(h);
}

fl_status fl_hll_clear(fl_hll *h) {
    if (!h) return FL_ERR_INVALID_ARG;
    return make_empty(h);
}

fl_status fl_hll_clone(const fl_hll *h, fl_hll **out) {
    if (!h || !out) return FL_ERR_INVALID_ARG;
    fl_hll *c;
    fl_status s = fl_hll_new(h->p, &c);
    if (s != FL_OK) return s;
    c->enc = h->enc;
    memcpy(c->card, h->card, sizeof c->card);
    memcpy(c->unused, h->unused, sizeof c->unused);
    c->sparse_max = h->sparse_max;
    c->bound = __atomic_load_n(&h->bound, __ATOMIC_ACQUIRE);
    if (h->enc == FL_HLL_DENSE) {
        s = fl_hll_alloc_regs(c);
        if (s == FL_OK) memcpy(c->regs, h->regs, h->m);
    } else if ((c->sp = malloc(h->sp_len ? h->sp_len : 1)) == NULL) {
        s = FL_ERR_NO_MEMORY;
    } else {
        memcpy(c->sp, h->sp, h->sp_len);
        c->sp_len = c->sp_cap = h->sp_len;
    }
    if (s != FL_OK) {
        fl_hll_free(c);
        return s;
    }
    *out = c;
    return FL_OK;
}

/* One register offer on either encoding; *grew |= 1 when it changed. */
static fl_status offer(fl_hll *h, uint32_t idx, uint8_t rank, int *grew) {
    if (h->enc == FL_HLL_SPARSE) {
        int r;
        fl_status s = fl_hll_sparse_set(h, idx, rank, &r);
        if (s != FL_OK) return s;
        if (r == 1) *grew = 1;
        if (r != 2) return FL_OK;
        if ((s = fl_hll_promote(h)) != FL_OK) return s;
    }
    if (rank > h->regs[idx]) {
        h->regs[idx] = rank;
        *grew = 1;
    }
    return FL_OK;
}

static void finish_add(fl_hll *h, int grew, int *changed) {
    if (grew) fl_hll_invalidate(h);
    if (changed) *changed = grew;
}

fl_status fl_hll_add_hashes(fl_hll *h, const uint64_t *hashes, size_t n, int *changed) {
    if (!h || (!hashes && n)) return FL_ERR_INVALID_ARG;
    int grew = 0;
    size_t i = 0;
    fl_status s = FL_OK;
    /* Sparse sketches take one hash at a time (Redis's order matters for their bytes);
     * once dense, the rest of the batch goes to the kernel. */
    for (; i < n && h->enc == FL_HLL_SPARSE && s == FL_OK; i++) {
        uint64_t x = fl_hll_load64((const unsigned char *)hashes + 8 * i);
        s = offer(h, fl_hll_index(x, h->p), fl_hll_rank(x, h->p), &grew);
    }
    if (s == FL_OK && i < n)
        grew |= fl_hll_kernels_of(h)->hll.add(h->regs, h->p,
                                              (const uint64_t *)(const void *)((
                                                  const unsigned char *)hashes + 8 * i),
                                              n - i);
    finish_add(h, grew, changed);
    return s;
}

fl_status fl_hll_add_bytes(fl_hll *h, const void *data, size_t len, int *changed) {
    if (!h || (!data && len)) return FL_ERR_INVALID_ARG;
    uint64_t x = fl_murmur64a(data, len, FL_HLL_REDIS_SEED);
    return fl_hll_add_hashes(h, &x, 1, changed);
}

fl_status fl_hll_add_strings(fl_hll *h, const void *const *data, const size_t *lens, size_t n,
                             int *changed) {
    if (!h || ((!data || !lens) && n)) return FL_ERR_INVALID_ARG;
    int grew = 0;
    for (size_t i = 0; i < n; i++) {
        if (!data[i] && lens[i]) {
            finish_add(h, grew, changed);
            return FL_ERR_INVALID_ARG;
        }
        int c = 0;
        uint64_t x = fl_murmur64a(data[i], lens[i], FL_HLL_REDIS_SEED);
        fl_status s = fl_hll_add_hashes(h, &x, 1, &c);
        grew |= c;
        if (s != FL_OK) {
            finish_add(h, grew, changed);
            return s;
        }
    }
    finish_add(h, grew, changed);
    return FL_OK;
}

fl_status fl_hll_add_u64s(fl_hll *h, const uint64_t *keys, size_t n, int *changed) {
    if (!h || (!keys && n)) return FL_ERR_INVALID_ARG;
    const fl_kernel_table *t = fl_hll_kernels_of(h);
    uint64_t buf[HLL_CHUNK];
    int grew = 0;
    for (size_t i = 0; i < n;) {
        size_t c = n - i < HLL_CHUNK ? n - i : HLL_CHUNK;
        t->hll.murmur8((const uint64_t *)(const void *)((const unsigned char *)keys + 8 * i), c,
                       FL_HLL_REDIS_SEED, buf);
        int g = 0;
        fl_status s = fl_hll_add_hashes(h, buf, c, &g);
        grew |= g;
        if (s != FL_OK) {
            finish_add(h, grew, changed);
            return s;
        }
        i += c;
    }
    finish_add(h, grew, changed);
    return FL_OK;
}

static void histogram(const fl_hll *h, uint32_t hist[64]) {
    memset(hist, 0, 64 * sizeof hist[0]);
    if (h->enc == FL_HLL_SPARSE)
        fl_hll_sparse_histo(h->sp, h->sp_len, hist);
    else
        fl_hll_kernels_of(h)->hll.histo(h->regs, h->m, hist);
}

/* Ertl (arXiv:1702.01284, 2017), section 4: sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1), the
 * correction for registers still at 0, summed until the term no longer changes the sum. */
static double ertl_sigma(double x) {
    if (x == 1.0) return INFINITY;
    double sum = x, weight = 1.0, before;
    do {
        x *= x;
        before = sum;
        sum += x * weight;
        weight += weight;
    } while (before != sum);
    return sum;
}

/* Ertl's tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3, the correction for
 * registers at the largest value q + 1. */
static double ertl_tau(double x) {
    if (x == 0.0 || x == 1.0) return 0.0;
    double sum = 1.0 - x, weight = 1.0, before;
    do {
        x = sqrt(x);
        before = sum;
        weight *= 0.5;
        sum -= pow(1.0 - x, 2) * weight;
    } while (before != sum);
    return sum / 3.0;
}

/* Ertl's improved raw estimator (his Algorithm 6) from the register histogram:
 * m^2 alpha_inf / (m tau(1 - C[q+1]/m) + sum_k C[k] 2^-k + m sigma(C[0]/m)), with the sum
 * done by Horner's rule from k = q down to 1, the same operations in the same order as
 * redis-server 7's hllCount, so the rounded result is PFCOUNT's. alpha_inf = 1/(2 ln 2). */
static uint64_t estimate_from(const uint32_t hist[64], uint32_t p) {
    const double alpha_inf = 0.721347520444481703680;
    double m = (double)(1u << p);
    int q = 64 - (int)p;
    double z = m * ertl_tau((m - hist[q + 1]) / m);
    for (int k = q; k >= 1; --k) {
        z += hist[k];
        z *= 0.5;
    }
    z += m * ertl_sigma(hist[0] / m);
    return (uint64_t)llroundl(alpha_inf * m * m / z);
}

fl_status fl_hll_estimate(const fl_hll *h, uint64_t *out) {
    if (!h || !out) return FL_ERR_INVALID_ARG;
    uint32_t hist[64];
    histogram(h, hist);
    *out = estimate_from(hist, h->p);
    return FL_OK;
}

fl_status fl_hll_count(fl_hll *h, uint64_t *out) {
    if (!h || !out) return FL_ERR_INVALID_ARG;
    uint64_t c = 0;
    if (!(h->card[7] & 0x80)) {
        for (int i = 7; i >= 0; i--) c = c << 8 | h->card[i];
    } else {
        fl_hll_estimate(h, &c);
        for (int i = 0; i < 8; i++) h->card[i] = (uint8_t)(c >> (8 * i));
    }
    *out = c;
    return FL_OK;
}

/* PFMERGE's rule: a dense source makes the destination dense; a sparse destination takes
 * the source's registers in index order through the sparse update (and may be promoted on
 * the way). The cached count is marked stale whatever changed. */
fl_status fl_hll_merge(fl_hll *dst, const fl_hll *src) {
    if (!dst || !src) return FL_ERR_INVALID_ARG;
    if (dst->p != src->p) return FL_ERR_INCOMPATIBLE;
    if (dst == src) return FL_OK;
    fl_status s = FL_OK;
    if (src->enc == FL_HLL_DENSE && (s = fl_hll_promote(dst)) != FL_OK) return s;
    if (dst->enc == FL_HLL_DENSE && src->enc == FL_HLL_DENSE) {
        fl_hll_kernels_of(dst)->hll.max(dst->regs, src->regs, dst->m);
    } else {
        /* src is sparse: walk its registers through its decoded form. */
        uint8_t *tmp = calloc(src->m, 1);
        if (!tmp) return FL_ERR_NO_MEMORY;
        fl_hll_sparse_decode(src->sp, src->sp_len, tmp);
        int grew = 0;
        for (uint32_t j = 0; j < src->m && s == FL_OK; j++)
            if (tmp[j]) s = offer(dst, j, tmp[j], &grew);
        free(tmp);
    }
    fl_hll_invalidate(dst);
    return s;
}

fl_status fl_hll_to_dense(fl_hll *h) {
    if (!h) return FL_ERR_INVALID_ARG;
    return fl_hll_promote(h);
}

fl_status fl_hll_set_sparse_max(fl_hll *h, size_t bytes) {
    if (!h) return FL_ERR_INVALID_ARG;
    h->sparse_max = bytes;
    return FL_OK;
}

fl_status fl_hll_register(const fl_hll *h, uint32_t i, uint8_t *out) {
    if (!h || !out || i >= h->m) return FL_ERR_INVALID_ARG;
    if (h->enc == FL_HLL_DENSE) {
        *out = h->regs[i];
        return FL_OK;
    }
    uint8_t *tmp = calloc(h->m, 1);
    if (!tmp) return FL_ERR_NO_MEMORY;
    fl_hll_sparse_decode(h->sp, h->sp_len, tmp);
    *out = tmp[i];
    free(tmp);
    return FL_OK;
}

fl_status fl_hll_info_get(const fl_hll *h, fl_hll_info *out) {
    if (!h || !out) return FL_ERR_INVALID_ARG;
    uint32_t hist[64];
    histogram(h, hist);
    memset(out, 0, sizeof *out);
    out->precision = h->p;
    out->registers = h->m;
    out->encoding = h->enc;
    out->registers_set = h->m - hist[0];
    for (uint32_t v = 63; v > 0; v--)
        if (hist[v]) {
            out->max_register = v;
            break;
        }
    if (h->p == FL_HLL_REDIS_P)
        fl_hll_export_redis_size(h, &out->redis_bytes);
    else
        out->redis_bytes = (size_t)h->m * 6 / 8;
    out->memory_bytes = h->enc == FL_HLL_DENSE ? (size_t)h->m + FL_HLL_REG_PAD : h->sp_cap;
    out->std_error = 1.04 / sqrt((double)h->m);
    out->cache_valid = !(h->card[7] & 0x80);
    for (int i = 7; i >= 0; i--) out->cached_count = out->cached_count << 8 | h->card[i];
    out->sparse_max_bytes = h->sparse_max;
    return FL_OK;
}

fl_status fl_hll_bind_kernel(fl_hll *h, const char *name) {
    if (!h) return FL_ERR_INVALID_ARG;
    return fl_kernel_bind(&h->bound, name);
}

const char *fl_hll_kernel(const fl_hll *h) {
    if (!h) return NULL;
    return fl_kernel_table_name(fl_hll_kernels_of(h));
}
