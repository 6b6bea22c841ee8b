/*
 * fpr_sweep's growing cuckoo filter rows (include/filterlab_gcf.h, through its own API): the
 * filter has no target to be sized for, since its FPR follows the extension bits its slots
 * hold, so it gets two "space" rows of label "growing" after the targets, each holding the
 * same n keys every other filter gets:
 *   fresh: created for n keys and filled with them (no doubling; every slot holds 7
 *          extension bits);
 *   grown: created for n / 8 keys and grown by the n keys' inserts (three doublings: the
 *          slots of the first n / 8 keys hold 4 extension bits, the last half 7).
 * Each row: the table's bytes over the keys (bits per key), the FPR measured over the same
 * never-inserted queries as every other row, and fl_gcf_info_get's estimate beside it.
 */
#include "fpr_sweep.h"

#define GCF_NAME "gcf"

static fl_status gcf_insert(void *f, const uint64_t *h, size_t m, size_t *done)
{
    return fl_gcf_insert_hashes(f, h, m, done);
}

static fl_status gcf_contains(const void *f, const uint64_t *h, size_t m, uint8_t *out,
                              size_t *positives)
{
    return fl_gcf_contains_hashes(f, h, m, out, positives);
}

static void gcf_row(bl_json *j, const char *state, uint64_t capacity, uint64_t n, uint64_t salt,
                    int *failures)
{
    fl_gcf *g = NULL;
    fl_status s = fl_gcf_create(capacity, g_seed, &g);
    if (s != FL_OK) {
        (*failures)++;
        error_row(j, "space", "growing", GCF_NAME, 0, 16, fl_strerror(s));
        return;
    }
    measured m = {.variant = GCF_NAME, .k = 16};
    fill_and_count(g, gcf_insert, gcf_contains, n, salt, &m);
    fl_gcf_info info;
    fl_gcf_info_get(g, &info);
    m.units = info.buckets;
    m.bytes = info.bytes;
    m.bits = 8 * (uint64_t)info.bytes;
    m.predicted_fpr = info.fpr;
    bl_json_open(j, NULL, '{');
    emit_measured(j, "space", "growing", 0, &m);
    bl_json_str(j, "state", state);
    bl_json_int(j, "n", (long long)n);
    bl_json_int(j, "initial_capacity", (long long)capacity);
    bl_json_int(j, "doublings", info.doublings);
    bl_json_num(j, "load", info.load);
    bl_json_close(j, '}');
    fl_gcf_free(g);
}

void gcf_space_rows(bl_json *j, uint64_t n, uint64_t salt, int *failures)
{
    gcf_row(j, "fresh", n, n, salt, failures);
    gcf_row(j, "grown", n / 8 ? n / 8 : 1, n, salt, failures);
}
