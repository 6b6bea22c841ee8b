/*
 * The module entries: one per function pointer of fl_kernel_table (kernels/kernels.h), each
 * named "<module>.<op>[.<shape>]", with how `filterlab tune` times it. The automatic choice
 * (src/cpu/dispatch.c), the rule table (src/cpu/kernel_rules.c), the wisdom file and the
 * reports all index this one list; and the candidates' names, which the wisdom file and
 * tune use.
 */
#include <string.h>

#include "cpu/kernel_choice.h"

#define E(nm, member, kind, sized, k, unit) \
    {nm, FL_KERNEL_SLOT(member), kind, sized, k, 0, unit, 0}
#define EF(nm, member, kind, arity, bits) \
    {nm, FL_KERNEL_SLOT(member), kind, 1, 0, arity, 0, bits}
/* k and unit sizes are the CLI defaults' (k = 7 classic, 8 blocked; 6 reg64): the timing
 * payload tune uses. */
const fl_entry_desc fl_entries[] = {
    E("bloom.contains.classic", bloom.contains[FL_BLOOM_CLASSIC], FL_EK_CONTAINS, 1, 7, 8),
    E("bloom.contains.block512", bloom.contains[FL_BLOOM_BLOCK512], FL_EK_CONTAINS, 1, 8, 64),
    E("bloom.contains.split256", bloom.contains[FL_BLOOM_SPLIT256], FL_EK_CONTAINS, 1, 8, 32),
    E("bloom.contains.reg64", bloom.contains[FL_BLOOM_REG64], FL_EK_CONTAINS, 1, 6, 8),
    E("bloom.insert.classic", bloom.insert[FL_BLOOM_CLASSIC], FL_EK_INSERT, 1, 7, 8),
    E("bloom.insert.block512", bloom.insert[FL_BLOOM_BLOCK512], FL_EK_INSERT, 1, 8, 64),
    E("bloom.insert.split256", bloom.insert[FL_BLOOM_SPLIT256], FL_EK_INSERT, 1, 8, 32),
    E("bloom.insert.reg64", bloom.insert[FL_BLOOM_REG64], FL_EK_INSERT, 1, 6, 8),
    E("bloom.contains1.classic", bloom.contains1[FL_BLOOM_CLASSIC], FL_EK_CONTAINS1, 1, 7, 8),
    E("bloom.contains1.block512", bloom.contains1[FL_BLOOM_BLOCK512], FL_EK_CONTAINS1, 1, 8, 64),
    E("bloom.contains1.split256", bloom.contains1[FL_BLOOM_SPLIT256], FL_EK_CONTAINS1, 1, 8, 32),
    E("bloom.contains1.reg64", bloom.contains1[FL_BLOOM_REG64], FL_EK_CONTAINS1, 1, 6, 8),
    E("cuckoo.contains.fp8", cuckoo.contains[FL_CUCKOO_FP8], FL_EK_CONTAINS, 1, 8, 4),
    E("cuckoo.contains.fp11", cuckoo.contains[FL_CUCKOO_FP11], FL_EK_CONTAINS, 1, 11, 5),
    E("cuckoo.contains.fp12", cuckoo.contains[FL_CUCKOO_FP12], FL_EK_CONTAINS, 1, 12, 6),
    E("cuckoo.contains.fp13", cuckoo.contains[FL_CUCKOO_FP13], FL_EK_CONTAINS, 1, 13, 6),
    E("cuckoo.contains.fp16", cuckoo.contains[FL_CUCKOO_FP16], FL_EK_CONTAINS, 1, 16, 8),
    E("cuckoo.contains_u64s.fp8", cuckoo.contains_u64s[FL_CUCKOO_FP8], FL_EK_CONTAINS_U64S, 1, 8, 4),
    E("cuckoo.contains_u64s.fp11", cuckoo.contains_u64s[FL_CUCKOO_FP11], FL_EK_CONTAINS_U64S, 1, 11, 5),
    E("cuckoo.contains_u64s.fp12", cuckoo.contains_u64s[FL_CUCKOO_FP12], FL_EK_CONTAINS_U64S, 1, 12, 6),
    E("cuckoo.contains_u64s.fp13", cuckoo.contains_u64s[FL_CUCKOO_FP13], FL_EK_CONTAINS_U64S, 1, 13, 6),
    E("cuckoo.contains_u64s.fp16", cuckoo.contains_u64s[FL_CUCKOO_FP16], FL_EK_CONTAINS_U64S, 1, 16, 8),
    E("counting.contains.classic", counting.contains[FL_COUNTING_CLASSIC], FL_EK_CONTAINS, 1, 7, 8),
    E("counting.contains.blocked", counting.contains[FL_COUNTING_BLOCKED], FL_EK_CONTAINS, 1, 8, 64),
    E("counting.insert.classic", counting.insert[FL_COUNTING_CLASSIC], FL_EK_INSERT, 1, 7, 8),
    E("counting.insert.blocked", counting.insert[FL_COUNTING_BLOCKED], FL_EK_INSERT, 1, 8, 64),
    E("counting.contains1.classic", counting.contains1[FL_COUNTING_CLASSIC], FL_EK_CONTAINS1, 1, 7, 8),
    E("counting.contains1.blocked", counting.contains1[FL_COUNTING_BLOCKED], FL_EK_CONTAINS1, 1, 8, 64),
    E("hash.u64", hash.u64, FL_EK_HASH_U64, 0, 0, 0),
    E("hll.add", hll.add, FL_EK_HLL_ADD, 0, 0, 0),
    E("hll.histo", hll.histo, FL_EK_HLL_HISTO, 0, 0, 0),
    E("hll.max", hll.max, FL_EK_HLL_MAX, 0, 0, 0),
    E("hll.murmur8", hll.murmur8, FL_EK_HASH_U64, 0, 0, 0),
    E("cms.update", cms.update, FL_EK_CMS_UPDATE, 1, 0, 0),
    E("cms.update_nosat", cms.update_nosat, FL_EK_CMS_UPDATE, 1, 0, 0),
    E("cms.update_cons", cms.update_cons, FL_EK_CMS_UPDATE, 1, 0, 0),
    E("cms.query", cms.query, FL_EK_CMS_QUERY, 1, 0, 0),
    EF("fuse.contains.3_8", fuse.contains[FL_FUSE3_8], FL_EK_FUSE_CONTAINS, 3, 8),
    EF("fuse.contains.3_16", fuse.contains[FL_FUSE3_16], FL_EK_FUSE_CONTAINS, 3, 16),
    EF("fuse.contains.4_8", fuse.contains[FL_FUSE4_8], FL_EK_FUSE_CONTAINS, 4, 8),
    EF("fuse.contains.4_16", fuse.contains[FL_FUSE4_16], FL_EK_FUSE_CONTAINS, 4, 16),
    EF("bloomier.get.3_16", fuse.get[FL_BLOOMIER3_16], FL_EK_BLOOMIER_GET, 3, 16),
    EF("bloomier.get.3_32", fuse.get[FL_BLOOMIER3_32], FL_EK_BLOOMIER_GET, 3, 32),
    EF("bloomier.get.4_16", fuse.get[FL_BLOOMIER4_16], FL_EK_BLOOMIER_GET, 4, 16),
    EF("bloomier.get.4_32", fuse.get[FL_BLOOMIER4_32], FL_EK_BLOOMIER_GET, 4, 32),
    E("vqf.contains", vqf.contains, FL_EK_CONTAINS, 1, 8, 64),
    E("vqf.insert", vqf.insert, FL_EK_VQF_UPDATE, 1, 8, 64),
    E("vqf.delete", vqf.del, FL_EK_VQF_UPDATE, 1, 8, 64),
    E("vqf.contains1", vqf.contains1, FL_EK_CONTAINS1, 1, 8, 64),
    E("vqf.insert1", vqf.insert1, FL_EK_VQF_UPDATE1, 1, 8, 64),
    E("vqf.delete1", vqf.del1, FL_EK_VQF_UPDATE1, 1, 8, 64),
    /* k: 8 columns, window 0 = the whole table (kernels/kernels.h): a filter not grown */
    E("gcf.contains", gcf.contains, FL_EK_CONTAINS, 1, 8, 8),
};
#undef E
#undef EF
const size_t fl_nentries = sizeof fl_entries / sizeof fl_entries[0];
#define NENT (sizeof fl_entries / sizeof fl_entries[0])
/* Every function pointer of fl_kernel_table is an entry: a new one must be listed above
 * (and named in HACKING.md's "how to add a kernel module"). */
_Static_assert(sizeof(fl_kernel_table) == NENT * sizeof(fl_any_fn),
               "fl_kernel_table has an entry fl_entries[] does not list");

int fl_entry_find(const char *name) {
    for (size_t i = 0; name && i < NENT; i++)
        if (strcmp(fl_entries[i].name, name) == 0) return (int)i;
    return -1;
}

/* ---- Candidates: the tables an entry's kernel can come from (FL_CAND_*) ----------------- */
const char *const fl_cand_names[FL_NCAND] = {"scalar",       "neon",   "avx2",
                                             "avx2-loads",   "avx512", "avx512-loads",
                                             "avx512-popcnt"};

/* The ISA tables' bundles (src/cpu/cpu_features.c), and for avx512-popcnt the two CPUID
 * bits its vpopcntq and vpopcntb need (kernels/vqf_avx512_popcnt.c): Skylake-X and Cascade
 * Lake have AVX-512 without them. */
const uint32_t fl_cand_needs[FL_NCAND] = {
    [FL_CAND_SCALAR] = 0,
    [FL_CAND_NEON] = FL_CPU_ASIMD,
    [FL_CAND_AVX2] = FL_CPU_AVX2_USABLE,
    [FL_CAND_AVX2_LOADS] = FL_CPU_AVX2_USABLE,
    [FL_CAND_AVX512] = FL_CPU_AVX512_USABLE,
    [FL_CAND_AVX512_LOADS] = FL_CPU_AVX512_USABLE,
    [FL_CAND_AVX512_POPCNT] =
        FL_CPU_AVX512_USABLE | FL_CPU_AVX512_VPOPCNTDQ | FL_CPU_AVX512_BITALG,
};

int fl_cand_find(const char *name) {
    for (int c = 0; name && c < FL_NCAND; c++)
        if (strcmp(fl_cand_names[c], name) == 0) return c;
    return -1;
}

/* ---- Per-entry reporting ------------------------------------------------------------- */
size_t fl_kernel_entry_count(void) {
    return NENT;
}

const char *fl_kernel_entry_name(size_t i) {
    return i < NENT ? fl_entries[i].name : NULL;
}

int fl_kernel_entry_sized(size_t i) {
    return i < NENT && fl_entries[i].sized;
}

const char *fl_size_class_name(int c) {
    static const char *const names[FL_SIZE_CLASSES] = {"L1", "L2", "LLC", "DRAM"};
    return c >= 0 && c < FL_SIZE_CLASSES ? names[c] : NULL;
}
