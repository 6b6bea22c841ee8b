/*
 * Redis's sparse HyperLogLog encoding (redis src/hyperloglog.c, "sparse representation"):
 *
 *   ZERO   00xxxxxx           xxxxxx + 1 (1..64) registers at 0
 *   XZERO  01xxxxxx yyyyyyyy  14-bit length + 1 (1..16384) registers at 0
 *   VAL    1vvvvvxx           xx + 1 (1..4) registers at vvvvv + 1 (1..32)
 *
 * The update follows Redis's hllSparseSet step by step (find the opcode covering the
 * register, split it into at most three opcodes, promote when the value is above 32 or the
 * string would grow past hll-sparse-max-bytes, then merge equal neighbouring VALs in a window
 * of five opcodes from the one before), so the same adds leave the same bytes as in Redis.
 */
#include <stdlib.h>
#include <string.h>

#include "hll/hll_internal.h"

#define IS_ZERO(b) (((b)&0xc0) == 0)
#define IS_XZERO(b) (((b)&0xc0) == 0x40)
#define IS_VAL(b) (((b)&0x80) != 0)
#define ZERO_LEN(b) ((uint32_t)((b)&0x3f) + 1)
#define XZERO_LEN(p) ((((uint32_t)(p)[0] & 0x3f) << 8 | (p)[1]) + 1)
#define VAL_VALUE(b) ((uint32_t)(((b) >> 2) & 0x1f) + 1)
#define VAL_LEN(b) ((uint32_t)((b)&0x3) + 1)
#define ZERO_MAX_LEN 64
#define VAL_MAX_LEN 4

static uint8_t val_op(uint32_t value, uint32_t len) {
    return (uint8_t)(0x80 | (value - 1) << 2 | (len - 1));
}

/* A zero run as ZERO when it fits, else XZERO (Redis's choice when it splits a run). */
static size_t put_zero_run(uint8_t *out, uint32_t len) {
    if (len > ZERO_MAX_LEN) {
        out[0] = (uint8_t)(0x40 | (len - 1) >> 8);
        out[1] = (uint8_t)((len - 1) & 0xff);
        return 2;
    }
    out[0] = (uint8_t)(len - 1);
    return 1;
}

static fl_status reserve(fl_hll *h, size_t need) {
    if (h->sp_cap >= need) return FL_OK;
    size_t cap = h->sp_cap ? h->sp_cap : 64;
    while (cap < need) cap *= 2;
    uint8_t *sp = realloc(h->sp, cap);
    if (!sp) return FL_ERR_NO_MEMORY;
    h->sp = sp;
    h->sp_cap = cap;
    return FL_OK;
}

fl_status fl_hll_sparse_init(fl_hll *h) {
    fl_status s = reserve(h, 64);
    if (s != FL_OK) return s;
    h->sp_len = put_zero_run(h->sp, h->m); /* m = 16384: one XZERO, 0x7f 0xff */
    return FL_OK;
}

fl_status fl_hll_sparse_validate(const uint8_t *sp, size_t len, uint32_t m) {
    size_t i = 0;
    uint64_t idx = 0;
    while (i < len) {
        uint8_t b = sp[i];
        uint32_t run;
        if (IS_ZERO(b)) {
            run = ZERO_LEN(b);
            i++;
        } else if (IS_XZERO(b)) {
            if (i + 1 >= len) return FL_ERR_TRUNCATED;
            run = XZERO_LEN(sp + i);
            i += 2;
        } else {
            run = VAL_LEN(b);
            i++;
        }
        idx += run;
        if (idx > m) return FL_ERR_HLL_FORMAT;
    }
    return idx == m ? FL_OK : FL_ERR_TRUNCATED;
}

void fl_hll_sparse_histo(const uint8_t *sp, size_t len, uint32_t hist[64]) {
    for (size_t i = 0; i < len;) {
        uint8_t b = sp[i];
        if (IS_ZERO(b)) {
            hist[0] += ZERO_LEN(b);
            i++;
        } else if (IS_XZERO(b)) {
            hist[0] += XZERO_LEN(sp + i);
            i += 2;
        } else {
            hist[VAL_VALUE(b)] += VAL_LEN(b);
            i++;
        }
    }
}

void fl_hll_sparse_decode(const uint8_t *sp, size_t len, uint8_t *regs) {
    size_t idx = 0;
    for (size_t i = 0; i < len;) {
        uint8_t b = sp[i];
        if (IS_ZERO(b)) {
            idx += ZERO_LEN(b);
            i++;
        } else if (IS_XZERO(b)) {
            idx += XZERO_LEN(sp + i);
            i += 2;
        } else {
            memset(regs + idx, (int)VAL_VALUE(b), VAL_LEN(b));
            idx += VAL_LEN(b);
            i++;
        }
    }
}

fl_status fl_hll_promote(fl_hll *h) {
    if (h->enc == FL_HLL_DENSE) return FL_OK;
    fl_status s = fl_hll_alloc_regs(h);
    if (s != FL_OK) return s;
    fl_hll_sparse_decode(h->sp, h->sp_len, h->regs);
    free(h->sp);
    h->sp = NULL;
    h->sp_len = h->sp_cap = 0;
    h->enc = FL_HLL_DENSE;
    return FL_OK;
}

/* Redis's step 4: merges a VAL with the next one when both hold the same value and their
 * lengths fit one opcode, scanning at most five opcodes from `from` (a merge counts as one
 * step and is retried in place, so a run can absorb its right neighbour too). */
static void merge_vals(fl_hll *h, size_t from) {
    uint8_t *sp = h->sp;
    size_t i = from, end = h->sp_len;
    int scan = 5;
    while (i < end && scan-- > 0) {
        uint8_t b = sp[i];
        if (IS_XZERO(b)) {
            i += 2;
            continue;
        }
        if (IS_ZERO(b)) {
            i++;
            continue;
        }
        if (i + 1 < end && IS_VAL(sp[i + 1]) && VAL_VALUE(b) == VAL_VALUE(sp[i + 1])) {
            uint32_t len = VAL_LEN(b) + VAL_LEN(sp[i + 1]);
            if (len <= VAL_MAX_LEN) {
                sp[i + 1] = val_op(VAL_VALUE(b), len);
                memmove(sp + i, sp + i + 1, end - i - 1);
                end--;
                continue;
            }
        }
        i++;
    }
    h->sp_len = end;
}

fl_status fl_hll_sparse_set(fl_hll *h, uint32_t idx, uint8_t count, int *result) {
    *result = 0;
    if (count > FL_HLL_SPARSE_VAL_MAX) {
        *result = 2;
        return FL_OK;
    }
    /* Step 1: the opcode covering idx, and the one before it (where merging starts). */
    uint8_t *sp = h->sp;
    size_t i = 0, prev = 0, end = h->sp_len;
    int has_prev = 0;
    uint32_t first = 0, span = 0;
    while (i < end) {
        size_t oplen = 1;
        uint8_t b = sp[i];
        if (IS_ZERO(b)) {
            span = ZERO_LEN(b);
        } else if (IS_VAL(b)) {
            span = VAL_LEN(b);
        } else {
            span = XZERO_LEN(sp + i);
            oplen = 2;
        }
        if (idx <= first + span - 1) break;
        prev = i;
        has_prev = 1;
        i += oplen;
        first += span;
    }
    if (i >= end) return FL_ERR_CORRUPT; /* validated on import: cannot happen */

    uint8_t b = sp[i];
    int is_xzero = IS_XZERO(b), is_val = IS_VAL(b), is_zero = IS_ZERO(b);
    uint32_t runlen = is_zero ? ZERO_LEN(b) : is_xzero ? XZERO_LEN(sp + i) : VAL_LEN(b);

    /* Step 2, the trivial cases: a VAL already as high (nothing to do); a VAL or ZERO of
     * length one rewritten in place. */
    if (is_val) {
        uint32_t old = VAL_VALUE(b);
        if (old >= count) return FL_OK;
        if (runlen == 1) {
            sp[i] = val_op(count, 1);
            goto updated;
        }
    }
    if (is_zero && runlen == 1) {
        sp[i] = val_op(count, 1);
        goto updated;
    }

    /* Step 3: split the run into [before][VAL count][after]. */
    uint8_t seq[5];
    size_t n = 0;
    uint32_t last = first + span - 1;
    if (is_val) {
        uint32_t cur = VAL_VALUE(b);
        if (idx != first) seq[n++] = val_op(cur, idx - first);
        seq[n++] = val_op(count, 1);
        if (idx != last) seq[n++] = val_op(cur, last - idx);
    } else {
        if (idx != first) n += put_zero_run(seq + n, idx - first);
        seq[n++] = val_op(count, 1);
        if (idx != last) n += put_zero_run(seq + n, last - idx);
    }
    size_t oldlen = is_xzero ? 2 : 1;
    if (n > oldlen && FL_HLL_REDIS_HDR_BYTES + h->sp_len + (n - oldlen) > h->sparse_max) {
        *result = 2;
        return FL_OK;
    }
    fl_status s = reserve(h, h->sp_len + 3);
    if (s != FL_OK) return s;
    sp = h->sp;
    size_t next = i + oldlen;
    memmove(sp + i + n, sp + next, h->sp_len - next);
    memcpy(sp + i, seq, n);
    h->sp_len = h->sp_len - oldlen + n;

updated:
    merge_vals(h, has_prev ? prev : 0);
    fl_hll_invalidate(h);
    *result = 1;
    return FL_OK;
}
