/* Kernel dispatch: the environment override (unknown names are errors, not crashes), manual
 * selection, every supported kernel answering like scalar on one batch (the full
 * differential check is tests/checkkernels), and the automatic choice per module entry: the
 * wisdom file (used on this CPU; another CPU's, a truncated, bit-flipped, fuzzed or
 * other-version one ignored with a reason), the rule table on fake CPUs, and overrides. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "cpu/kernel_choice.h"
#include "fl_config.h"

static char wisdom_file[64];

static void env_override_unknown_name(void **state) {
    (void)state;
    /* main() set FILTERLAB_KERNEL=bogus before the first library call. */
    assert_int_equal(fl_kernel_env_status(), FL_ERR_UNKNOWN_KERNEL);
    assert_non_null(strstr(fl_kernel_reason(), "bogus"));
    assert_non_null(fl_kernel_active());
}

static void describe_and_select(void **state) {
    (void)state;
    size_t n = fl_kernel_count();
    assert_true(n >= 1);
    fl_kernel_desc d;
    assert_int_equal(fl_kernel_describe(0, &d), FL_OK);
    assert_string_equal(d.name, "scalar");
    assert_int_equal(d.supported, 1);
    assert_int_equal(fl_kernel_describe(n, &d), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_kernel_select("no-such-isa"), FL_ERR_UNKNOWN_KERNEL);
    assert_int_equal(fl_kernel_select(NULL), FL_ERR_INVALID_ARG);

    uint64_t *in = test_hashes(50000, 40), *probe = test_hashes(5000, 41);
    const fl_variant variants[] = {FL_CLASSIC, FL_BLOCK512, FL_SPLIT256, FL_REG64, FL_CUCKOO};
    uint8_t ref[5000], got[5000];
    for (size_t v = 0; v < 5; v++) {
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(fl_kernel_describe(i, &d), FL_OK);
            fl_status s = fl_kernel_select(d.name);
            if (!d.supported) {
                assert_int_equal(s, FL_ERR_KERNEL_UNAVAILABLE);
                continue;
            }
            assert_int_equal(s, FL_OK);
            assert_string_equal(fl_kernel_active(), d.name);
            fl_filter *f;
            assert_int_equal(fl_create_for(variants[v], 50000, 0.02, &f), FL_OK);
            assert_int_equal(fl_insert_hashes(f, in, 50000, NULL), FL_OK);
            size_t pos;
            assert_int_equal(fl_contains_hashes(f, probe, 5000, i == 0 ? ref : got, &pos),
                             FL_OK);
            if (i > 0) assert_memory_equal(ref, got, sizeof ref);
            fl_free(f);
        }
    }
    assert_int_equal(fl_kernel_select("auto"), FL_OK);
    free(in);
    free(probe);
}

/* Per-filter kernels: filters bound to different tables answer alike, a binding survives a
 * change of the process choice, bad names leave it unchanged, and NULL / "auto" unbind. */
static void bind_per_filter(void **state) {
    (void)state;
    uint64_t *in = test_hashes(20000, 50), *probe = test_hashes(4000, 51);
    uint8_t ref[4000], got[4000];
    const fl_variant variants[] = {FL_CLASSIC, FL_BLOCK512, FL_SPLIT256, FL_REG64, FL_CUCKOO};
    for (size_t v = 0; v < 5; v++) {
        fl_filter *scalar_f, *f;
        assert_int_equal(fl_create_for(variants[v], 20000, 0.02, &scalar_f), FL_OK);
        assert_int_equal(fl_filter_bind_kernel(scalar_f, "scalar"), FL_OK);
        assert_string_equal(fl_filter_kernel(scalar_f), "scalar");
        assert_int_equal(fl_insert_hashes(scalar_f, in, 20000, NULL), FL_OK);
        assert_int_equal(fl_contains_hashes(scalar_f, probe, 4000, ref, NULL), FL_OK);
        for (size_t i = 0; i < fl_kernel_count(); i++) {
            fl_kernel_desc d;
            assert_int_equal(fl_kernel_describe(i, &d), FL_OK);
            assert_int_equal(fl_create_for(variants[v], 20000, 0.02, &f), FL_OK);
            fl_status s = fl_filter_bind_kernel(f, d.name);
            if (!d.supported) {
                assert_int_equal(s, FL_ERR_KERNEL_UNAVAILABLE);
                fl_free(f);
                continue;
            }
            assert_int_equal(s, FL_OK);
            /* The process choice moves; the bound filters do not. */
            assert_int_equal(fl_kernel_select("scalar"), FL_OK);
            assert_string_equal(fl_filter_kernel(f), d.name);
            assert_int_equal(fl_insert_hashes(f, in, 10000, NULL), FL_OK);
            assert_int_equal(fl_kernel_select("auto"), FL_OK);
            assert_int_equal(fl_insert_hashes(f, in + 10000, 10000, NULL), FL_OK);
            memset(got, 0xee, sizeof got);
            assert_int_equal(fl_contains_hashes(f, probe, 4000, got, NULL), FL_OK);
            assert_memory_equal(ref, got, sizeof ref);
            for (size_t j = 0; j < 4000; j++)
                assert_int_equal(fl_contains_hash(f, probe[j]), ref[j]);
            fl_free(f);
        }
        fl_free(scalar_f);
    }
    fl_filter *f;
    assert_int_equal(fl_create_for(FL_BLOCK512, 1000, 0.01, &f), FL_OK);
    assert_int_equal(fl_filter_bind_kernel(f, "scalar"), FL_OK);
    assert_int_equal(fl_filter_bind_kernel(f, "no-such-isa"), FL_ERR_UNKNOWN_KERNEL);
    assert_string_equal(fl_filter_kernel(f), "scalar");
    assert_int_equal(fl_filter_bind_kernel(f, "auto"), FL_OK);
    assert_string_equal(fl_filter_kernel(f), fl_kernel_active());
    assert_int_equal(fl_filter_bind_kernel(f, "scalar"), FL_OK);
    assert_int_equal(fl_filter_bind_kernel(f, NULL), FL_OK);
    assert_string_equal(fl_filter_kernel(f), fl_kernel_active());
    assert_int_equal(fl_filter_bind_kernel(NULL, "scalar"), FL_ERR_INVALID_ARG);
    assert_null(fl_filter_kernel(NULL));
    fl_free(f);
    free(in);
    free(probe);
}

/* ---- the automatic choice ---- */

static unsigned avail_here(void) {
    unsigned m = 0;
    for (int c = 0; c < FL_NCAND; c++)
        if (fl_cand_table(c)) m |= 1u << c;
    return m;
}

/* A wisdom text for key k (with an avx2 timing if with_avx2): block512 lookups measured at L1 with scalar "fastest" (a choice
 * no rule would make, so its source is visible), plus cms.query at DRAM. */
static char *fake_wisdom(const fl_wisdom_key *k, const char *date, int with_avx2, size_t *len) {
    fl_wisdom w;
    memset(&w, 0, sizeof w);
    w.key = *k;
    snprintf(w.date, sizeof w.date, "%s", date);
    fl_host h; /* fl_host_describe, not fl_size_class_limits: that would start dispatch */
    assert_int_equal(fl_host_describe(&h), FL_OK);
    fl_size_limits_of(&h, w.limits);
    w.cells = calloc(fl_nentries * FL_NSIZE_CLASSES, sizeof *w.cells);
    assert_non_null(w.cells);
    int e = fl_entry_find("bloom.contains.block512");
    fl_wisdom_cell *x = &w.cells[(size_t)e * FL_NSIZE_CLASSES + FL_SIZE_L1];
    x->have = 1;
    x->cand = FL_CAND_SCALAR;
    x->ns[FL_CAND_SCALAR] = 1.0;
    if (with_avx2) x->ns[FL_CAND_AVX2] = 2.5;
    e = fl_entry_find("cms.query");
    x = &w.cells[(size_t)e * FL_NSIZE_CLASSES + FL_SIZE_DRAM];
    x->have = 1;
    x->cand = FL_CAND_SCALAR;
    x->ns[FL_CAND_SCALAR] = 40.0;
    char *text = fl_wisdom_format(&w, len);
    assert_non_null(text);
    fl_wisdom_free(&w);
    return text;
}

/* Replaces the sha256 line of text (length *len, malloc'ed) with the body's checksum. */
static char *reseal(char *text, size_t *len) {
    char *last = text + *len;
    if (last > text && last[-1] == '\n') last--;
    while (last > text && last[-1] != '\n') last--;
    size_t body = (size_t)(last - text);
    uint8_t d[32];
    fl_sha256(text, body, d);
    char *out = malloc(body + 80);
    assert_non_null(out);
    memcpy(out, text, body);
    memcpy(out + body, "sha256 ", 7);
    size_t o = body + 7;
    for (int i = 0; i < 32; i++) {
        out[o++] = "0123456789abcdef"[d[i] >> 4];
        out[o++] = "0123456789abcdef"[d[i] & 15];
    }
    out[o++] = '\n';
    free(text);
    *len = o;
    return out;
}

/* Replaces the first occurrence of `from` in text by `to`, then reseals it. */
static char *edit(const char *text, size_t len, const char *from, const char *to, size_t *olen) {
    const char *p = strstr(text, from);
    assert_non_null(p);
    char *out = malloc(len + strlen(to) + 1);
    assert_non_null(out);
    size_t a = (size_t)(p - text);
    memcpy(out, text, a);
    strcpy(out + a, to);
    strcpy(out + a + strlen(to), p + strlen(from));
    *olen = strlen(out);
    return reseal(out, olen);
}

/* 1 if this build's neon kernel runs through SIMDe on another ISA (x86): such a kernel is
 * never a candidate, where native NEON (aarch64) is one. */
static int neon_emulated(void) {
    fl_kernel_desc d;
    for (size_t i = 0; fl_kernel_describe(i, &d) == FL_OK; i++)
        if (strcmp(d.name, "neon") == 0) return d.emulated;
    return 0;
}

static int parses(const char *buf, size_t len, const fl_wisdom_key *k, unsigned avail,
                  char *why, size_t cap) {
    fl_wisdom w;
    why[0] = '\0';
    int ok = fl_wisdom_parse(buf, len, k, avail, &w, why, cap);
    if (ok) {
        /* Whatever was accepted names kernels this CPU runs and the fastest timing. */
        for (size_t i = 0; i < fl_nentries * FL_NSIZE_CLASSES; i++)
            if (w.cells[i].have) {
                assert_true(avail & (1u << w.cells[i].cand));
                for (int c = 0; c < FL_NCAND; c++)
                    if (w.cells[i].ns[c] > 0) assert_true(w.cells[i].ns[c] >= w.cells[i].ns[w.cells[i].cand]);
            }
        fl_wisdom_free(&w);
    } else {
        assert_true(why[0] != '\0');
        assert_null(strchr(why, '\n'));
    }
    return ok;
}

/* main() wrote a wisdom file for this CPU and pointed FILTERLAB_WISDOM at it. */
static void wisdom_used_at_first_use(void **state) {
    (void)state;
    const char *st = fl_kernel_wisdom_status();
    assert_string_equal(fl_kernel_wisdom_path(), wisdom_file);
    assert_true(strncmp(st, "used: ", 6) == 0);
    assert_non_null(strstr(st, "2026-01-02"));
    const char *k, *why;
    assert_int_equal(fl_kernel_choice("bloom.contains.block512", FL_SIZE_L1, &k, &why), FL_OK);
    assert_string_equal(k, "scalar");
    assert_non_null(strstr(why, "measured here on 2026-01-02 by filterlab tune"));
    /* Not measured in the file: the rule table. */
    assert_int_equal(fl_kernel_choice("bloom.contains.block512", FL_SIZE_L2, &k, &why), FL_OK);
    assert_true(strncmp(why, "rule: ", 6) == 0 || strstr(why, "only kernel"));
    assert_int_equal(fl_kernel_choice("cms.query", FL_SIZE_DRAM, &k, &why), FL_OK);
    assert_string_equal(k, "scalar");
    /* The composed tables hold what fl_kernel_choice reports, for every entry and class. */
    uint64_t lim[3];
    assert_int_equal(fl_size_class_limits(lim), FL_OK);
    size_t probe[4] = {0, (size_t)lim[0] + 1, (size_t)lim[1] + 1, (size_t)lim[2] + 1};
    for (size_t e = 0; e < fl_kernel_entry_count(); e++)
        for (int c = 0; c < FL_SIZE_CLASSES; c++) {
            assert_int_equal(fl_kernel_choice(fl_kernel_entry_name(e), c, &k, &why), FL_OK);
            int cand = fl_cand_find(k);
            assert_true(cand >= 0 && fl_cand_table(cand) != NULL);
            fl_any_fn fn;
            memcpy(&fn, (const char *)fl_kernels_sized(probe[c]) + fl_entries[e].slot, sizeof fn);
            assert_true(fn == fl_cand_fn(cand, e));
        }
}

/* fl_kernel_choice_run splits each entry's size classes into maximal runs of one kernel and
 * reason, labelled as `filterlab kernels` and FILTERLAB.KERNEL print them. */
static void choice_runs_group_agreeing_classes(void **state) {
    (void)state;
    char label[16];
    const char *k, *why;
    int end;
    for (size_t e = 0; e < fl_kernel_entry_count(); e++) {
        const char *name = fl_kernel_entry_name(e), *prev_k = NULL, *prev_why = NULL;
        for (int c = 0; c < FL_SIZE_CLASSES; c = end) {
            assert_int_equal(fl_kernel_choice_run(name, c, &k, &why, &end, label, sizeof label),
                             FL_OK);
            assert_true(end > c && end <= FL_SIZE_CLASSES);
            for (int x = c; x < end; x++) {
                const char *xk, *xwhy;
                assert_int_equal(fl_kernel_choice(name, x, &xk, &xwhy), FL_OK);
                assert_string_equal(xk, k);
                assert_string_equal(xwhy, why);
            }
            if (prev_k) /* maximal: the run before differs */
                assert_true(strcmp(prev_k, k) != 0 || strcmp(prev_why, why) != 0);
            prev_k = k;
            prev_why = why;
            const char *first = fl_size_class_name(c), *last = fl_size_class_name(end - 1);
            if (c == 0 && end == FL_SIZE_CLASSES) {
                assert_string_equal(label, "all");
            } else {
                assert_true(strncmp(label, first, strlen(first)) == 0);
                if (end == c + 1)
                    assert_string_equal(label + strlen(first), "");
                else
                    assert_true(label[strlen(first)] == '-' &&
                                strcmp(label + strlen(first) + 1, last) == 0);
            }
        }
    }
    /* The wisdom file measured block512 lookups at L1 only: L1 is a run of its own. */
    assert_int_equal(fl_kernel_choice_run("bloom.contains.block512", FL_SIZE_L1, &k, &why, &end,
                                          label, sizeof label),
                     FL_OK);
    assert_string_equal(label, "L1");
    assert_string_equal(k, "scalar");
    assert_int_equal(end, FL_SIZE_L2);
    assert_int_equal(fl_kernel_choice_run("no.such.entry", 0, &k, &why, &end, label, sizeof label),
                     FL_ERR_INVALID_ARG);
    assert_int_equal(fl_kernel_choice_run("cms.query", FL_SIZE_CLASSES, &k, &why, &end, label,
                                          sizeof label),
                     FL_ERR_INVALID_ARG);
    assert_int_equal(fl_kernel_choice_run("cms.query", 0, &k, &why, NULL, label, sizeof label),
                     FL_ERR_INVALID_ARG);
}

static void wisdom_rejected_with_reason(void **state) {
    (void)state;
    fl_wisdom_key here;
    fl_wisdom_key_here(&here);
    unsigned avail = avail_here();
    size_t len, l2;
    char why[512];
    char *good = fake_wisdom(&here, "2026-01-02", fl_cand_table(FL_CAND_AVX2) != NULL, &len);
    assert_true(parses(good, len, &here, avail, why, sizeof why));

    /* Another CPU: each field of the key. */
    fl_wisdom_key other = here;
    other.model++;
    assert_false(parses(good, len, &other, avail, why, sizeof why));
    assert_non_null(strstr(why, "another CPU"));
    other = here;
    snprintf(other.microcode, sizeof other.microcode, "0xdead");
    assert_false(parses(good, len, &other, avail, why, sizeof why));
    other = here;
    other.features ^= FL_CPU_AVX512F;
    assert_false(parses(good, len, &other, avail, why, sizeof why));
    other = here;
    snprintf(other.library, sizeof other.library, "9.9.9");
    assert_false(parses(good, len, &other, avail, why, sizeof why));
    assert_non_null(strstr(why, "written by filterlab"));

    /* Truncated at every length. */
    for (size_t n = 0; n < len; n++) assert_false(parses(good, n, &here, avail, why, sizeof why));

    /* Every single bit flipped: the checksum, the header or the framing catches it. */
    char *buf = malloc(len);
    assert_non_null(buf);
    for (size_t i = 0; i < len; i++)
        for (int b = 0; b < 8; b++) {
            memcpy(buf, good, len);
            buf[i] ^= (char)(1 << b);
            assert_false(parses(buf, len, &here, avail, why, sizeof why));
        }
    free(buf);

    /* Other versions, and well-sealed files with bad content. */
    char *v = edit(good, len, "filterlab-wisdom 1", "filterlab-wisdom 2", &l2);
    assert_false(parses(v, l2, &here, avail, why, sizeof why));
    assert_non_null(strstr(why, "version 2"));
    free(v);
    v = edit(good, len, "bloom.contains.block512", "bloom.contains.nosuch", &l2);
    assert_false(parses(v, l2, &here, avail, why, sizeof why));
    assert_non_null(strstr(why, "unknown entry"));
    free(v);
    if (fl_cand_table(FL_CAND_AVX2)) { /* avx2 measured at 2.5 beside scalar */
        v = edit(good, len, "L1 scalar scalar=1.000", "L1 scalar scalar=9.000", &l2);
        assert_false(parses(v, l2, &here, avail, why, sizeof why)); /* not the fastest */
        free(v);
    }
    if (neon_emulated()) {
        v = edit(good, len, "L1 scalar", "L1 neon", &l2); /* emulated: never a candidate */
        assert_false(parses(v, l2, &here, avail, why, sizeof why));
        free(v);
    }
    v = edit(good, len, "cms.query DRAM", "hash.u64 DRAM", &l2); /* unsized: one class */
    assert_false(parses(v, l2, &here, avail, why, sizeof why));
    free(v);
    if (fl_cand_table(FL_CAND_AVX2)) {
        v = edit(good, len, "L1 scalar scalar=1.000", "L1 avx2 scalar=3.000", &l2);
        assert_true(parses(v, l2, &here, avail, why, sizeof why));
        /* ... but not on a CPU without AVX2. */
        assert_false(parses(v, l2, &here, 1u << FL_CAND_SCALAR, why, sizeof why));
        assert_non_null(strstr(why, "does not run"));
        free(v);
    }
    assert_false(parses("", 0, &here, avail, why, sizeof why));
    assert_false(parses("\0\0\0", 3, &here, avail, why, sizeof why));
    assert_false(parses("filterlab-wisdom 1\n\0sha256\n", 27, &here, avail, why, sizeof why));

    /* Fuzzing behind a valid checksum: random byte edits, resealed, must parse or be
     * refused, never crash or accept a kernel that does not run here. */
    uint64_t r = 12345;
    for (int it = 0; it < 20000; it++) {
        size_t n = len;
        char *f = malloc(len + 1);
        assert_non_null(f);
        memcpy(f, good, len);
        int edits = 1 + (int)(r % 4);
        for (int j = 0; j < edits; j++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(r >> 33) % (n - 66 > 0 ? n - 66 : 1);
            static const char alphabet[] = " \n=.-0123456789abcdefxLDRAMscalrv2\x01\xff";
            f[at] = alphabet[(r >> 20) % (sizeof alphabet - 1)];
        }
        f = reseal(f, &n);
        parses(f, n, &here, avail, why, sizeof why);
        free(f);
    }
    free(good);
}

static void rules_on_fake_cpus(void **state) {
    (void)state;
    const unsigned x86 = (1u << FL_CAND_SCALAR) | (1u << FL_CAND_AVX2) |
                         (1u << FL_CAND_AVX2_LOADS) | (1u << FL_CAND_AVX512) |
                         (1u << FL_CAND_AVX512_LOADS);
    const unsigned no512 = (1u << FL_CAND_SCALAR) | (1u << FL_CAND_AVX2) |
                           (1u << FL_CAND_AVX2_LOADS);
    const uint32_t avx512 = FL_CPU_AVX2 | FL_CPU_BMI2 | FL_CPU_FMA | FL_CPU_AVX512F |
                            FL_CPU_AVX512BW | FL_CPU_AVX512VL | FL_CPU_AVX512DQ;
    fl_cpu_id zen4 = {"AuthenticAMD", 0x19, 0x61, 2, -1, -1, avx512};
    fl_cpu_id zen5 = {"AuthenticAMD", 0x1A, 0x44, 0, -1, -1, avx512 | FL_CPU_AVX512_VP2INTERSECT};
    const uint32_t avx2 = FL_CPU_AVX2 | FL_CPU_BMI2 | FL_CPU_FMA;
    fl_cpu_id zen3 = {"AuthenticAMD", 0x19, 0x21, 0, -1, -1, avx2};
    fl_cpu_id zen2 = {"AuthenticAMD", 0x17, 0x31, 0, -1, -1, avx2};
    fl_cpu_id zenplus = {"AuthenticAMD", 0x17, 0x08, 2, -1, -1, avx2};
    fl_cpu_id emr = {"GenuineIntel", 6, 0xCF, 2, -1, -1,
                     avx512 | FL_CPU_AMX_TILE | FL_CPU_AVX512_FP16 | FL_CPU_HYPERVISOR};
    fl_cpu_id skx = {"GenuineIntel", 6, 0x55, 4, -1, -1, avx512};
    fl_cpu_id odd = {"SomeNewVendor", 7, 1, 0, -1, -1, avx512};
    struct {
        const fl_cpu_id *id;
        unsigned avail;
        const char *entry;
        int cls;
        const char *want;
        const char *why_has;
    } cases[] = {
        {&zen4, x86, "bloom.contains.classic", FL_SIZE_L2, "scalar", "Zen 4"},
        {&zen4, x86, "counting.contains.classic", FL_SIZE_L1, "scalar", "Zen 4"},
        {&zen4, x86, "bloom.contains.split256", FL_SIZE_DRAM, "avx2", "1.63"},
        {&zen4, x86, "cuckoo.contains.fp16", FL_SIZE_L1, "avx2", "2.22"},
        {&zen4, x86, "fuse.contains.3_8", FL_SIZE_L2, "avx2", "2.58"},
        {&zen4, x86, "bloomier.get.4_32", FL_SIZE_L2, "avx2-loads", "Zen 4"},
        {&zen4, x86, "hll.add", FL_SIZE_L1, "avx2", "Zen 4"},
        {&zen5, x86, "bloom.contains.classic", FL_SIZE_LLC, "scalar", "Zen 5"},
        {&zen5, x86, "bloom.contains.block512", FL_SIZE_L1, "avx512", "no rule"},
        {&zen3, no512, "bloom.contains.classic", FL_SIZE_L1, "avx2", "Zen 3"},
        {&zen3, no512, "bloom.contains.classic", FL_SIZE_L2, "avx2", "Zen 3"},
        {&zen3, no512, "bloom.contains.classic", FL_SIZE_LLC, "scalar", "Zen 3"},
        {&zen3, no512, "counting.contains.classic", FL_SIZE_L1, "avx2", "Zen 3"},
        {&zen3, no512, "counting.contains1.classic", FL_SIZE_DRAM, "scalar", "Zen 3"},
        {&zen3, no512, "cuckoo.contains.fp12", FL_SIZE_L2, "avx2-loads", "Zen 3"},
        {&zen3, no512, "cuckoo.contains_u64s.fp8", FL_SIZE_DRAM, "avx2-loads", "Zen 3"},
        {&zen3, (1u << FL_CAND_SCALAR) | (1u << FL_CAND_AVX2), "cuckoo.contains.fp16", FL_SIZE_L1,
         "avx2", "not measured"}, /* a table without the loads form: the next rule */
        {&zen3, no512, "vqf.contains", FL_SIZE_L2, "avx2", "widest"},
        {&zen2, no512, "vqf.contains", FL_SIZE_L2, "scalar", "PDEP"},
        {&zen2, no512, "vqf.delete1", FL_SIZE_DRAM, "scalar", "PDEP"},
        {&zenplus, no512, "vqf.insert", FL_SIZE_L1, "scalar", "PDEP"},
        {&zen3, no512, "counting.contains.classic", FL_SIZE_L2, "avx2", "Zen 3"},
        {&zen2, no512, "bloom.contains.split256", FL_SIZE_L1, "avx2", "not measured"},
        {&zen3, no512, "fuse.contains.4_16", FL_SIZE_L1, "avx2-loads", "not measured"},
        {&zen3, no512, "bloom.contains.block512", FL_SIZE_L1, "avx2", "widest"},
        {&emr, x86, "bloom.contains.classic", FL_SIZE_L2, "avx512", "Emerald Rapids"},
        {&emr, x86, "cms.query", FL_SIZE_L1, "avx2", "1.98"},
        {&emr, x86, "cms.query", FL_SIZE_DRAM, "avx512", "Emerald Rapids"},
        {&emr, x86, "cms.update_cons", FL_SIZE_L2, "scalar", "11.3"},
        {&emr, x86, "cms.update_cons", FL_SIZE_DRAM, "avx2", "52.0"},
        {&emr, x86, "bloom.contains.split256", FL_SIZE_L1, "avx512", "Emerald Rapids"},
        {&emr, x86, "fuse.contains.3_8", FL_SIZE_L2, "avx512", "2.74"},
        {&emr, x86, "fuse.contains.4_16", FL_SIZE_DRAM, "avx512", "2.74"},
        {&emr, x86 | (1u << FL_CAND_AVX512_POPCNT), "vqf.contains", FL_SIZE_L2, "avx512-popcnt",
         "4.81"},
        {&emr, x86, "vqf.contains", FL_SIZE_L2, "avx512", "the widest"}, /* no popcnt bits */
        {&emr, x86, "cuckoo.contains_u64s.fp12", FL_SIZE_L2, "avx512", "integer keys"},
        {&emr, x86, "cuckoo.contains_u64s.fp8", FL_SIZE_DRAM, "avx512", "integer keys"},
        /* the semi-sorted widths' avx512 kernels never ran: avx2 on every CPU, EMR's too */
        {&emr, x86, "cuckoo.contains_u64s.fp11", FL_SIZE_L2, "avx2", "semi-sorted"},
        {&emr, x86, "cuckoo.contains.fp13", FL_SIZE_DRAM, "avx2", "semi-sorted"},
        {&emr, x86, "cuckoo.contains.fp12", FL_SIZE_DRAM, "avx512", "Emerald Rapids"},
        {&zen5, x86, "cuckoo.contains_u64s.fp13", FL_SIZE_L1, "avx2", "semi-sorted"},
        {&zen3, no512, "cuckoo.contains.fp11", FL_SIZE_L1, "avx2-loads", "Zen 3"},
        {&zen4, x86, "cuckoo.contains_u64s.fp12", FL_SIZE_L2, "avx2", "not measured"},
        {&odd, x86, "cuckoo.contains_u64s.fp16", FL_SIZE_L1, "avx2", "not measured"},
        {&emr, no512, "bloom.contains.classic", FL_SIZE_L1, "scalar", "not measured"},
        {&skx, x86, "bloom.contains.classic", FL_SIZE_L1, "scalar", "Gather Data Sampling"},
        {&skx, x86, "bloom.contains.reg64", FL_SIZE_L1, "avx512", "widest"},
        {&odd, x86, "fuse.contains.3_8", FL_SIZE_L1, "avx2-loads", "not measured"},
        {&odd, x86, "cuckoo.contains.fp8", FL_SIZE_L1, "avx2", "not measured"},
        {&odd, x86, "counting.contains1.classic", FL_SIZE_DRAM, "scalar", "not measured"},
        {&odd, 1u << FL_CAND_SCALAR, "bloom.contains.block512", FL_SIZE_L1, "scalar", "no SIMD"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int e = fl_entry_find(cases[i].entry);
        assert_true(e >= 0);
        const char *why = NULL;
        int c = fl_rule_choice(cases[i].id, (size_t)e, cases[i].cls, cases[i].avail, &why);
        if (strcmp(fl_cand_names[c], cases[i].want) || !strstr(why, cases[i].why_has))
            fail_msg("case %zu (%s): got %s (%s), want %s (... %s ...)", i, cases[i].entry,
                     fl_cand_names[c], why, cases[i].want, cases[i].why_has);
        assert_true(cases[i].avail & (1u << c)); /* never a kernel the CPU lacks */
    }
    /* Every rule's text fits the reason dispatch.c keeps after "rule: ": a longer one would
     * be cut without a word in `filterlab kernels`. */
    const fl_cpu_id *cpus[] = {&zen4, &zen5, &zen3, &zen2, &zenplus, &emr, &skx, &odd};
    for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++)
        for (size_t e = 0; e < fl_kernel_entry_count(); e++)
            for (int cls = 0; cls < FL_NSIZE_CLASSES; cls++) {
                const char *why = NULL;
                fl_rule_choice(cpus[i], e, cls,
                               cpus[i] == &zen3 || cpus[i] == &zen2 || cpus[i] == &zenplus
                                   ? no512
                                   : x86,
                               &why);
                if (strlen("rule: ") + strlen(why) >= FL_REASON_MAX)
                    fail_msg("rule text too long (%zu bytes): %s", strlen(why), why);
            }
}

/* The mask of candidates a CPU with these features runs (fl_cand_needs), as dispatch builds
 * it where the build has every candidate (off x86 the x86 ones are never there). */
static unsigned avail_for(uint32_t f) {
    unsigned m = 0;
    for (int c = 0; c < FL_NCAND; c++)
        if ((f & fl_cand_needs[c]) == fl_cand_needs[c] && c != FL_CAND_NEON) m |= 1u << c;
    return m;
}

/* avx512-popcnt runs only with AVX-512, both popcount bits and the OS's ZMM state; where it
 * runs, a CPU with no measured rule for it keeps avx512; in this process it is avx512's
 * table with vqf.contains alone replaced. */
static void avx512_popcnt_needs_its_bits(void **state) {
    (void)state;
    const uint32_t avx512 = FL_CPU_AVX2 | FL_CPU_BMI2 | FL_CPU_FMA | FL_CPU_AVX512F |
                            FL_CPU_AVX512BW | FL_CPU_AVX512VL | FL_CPU_AVX512DQ |
                            FL_CPU_OS_YMM | FL_CPU_OS_ZMM | FL_CPU_AVX2_USABLE |
                            FL_CPU_AVX512_USABLE;
    const uint32_t popcnt = FL_CPU_AVX512_VPOPCNTDQ | FL_CPU_AVX512_BITALG;
    const unsigned p = 1u << FL_CAND_AVX512_POPCNT;
    /* Skylake-X and Cascade Lake: AVX-512 without either bit. */
    fl_cpu_id skx = {"GenuineIntel", 6, 0x55, 4, -1, -1, avx512};
    /* Ice Lake server: both bits, no measured rule. */
    fl_cpu_id icx = {"GenuineIntel", 6, 0x6A, 6, -1, -1, avx512 | popcnt};
    /* Emerald Rapids with both bits, and as a hypervisor that hid one of them. */
    const uint32_t emr_f = avx512 | FL_CPU_AMX_TILE | FL_CPU_AVX512_FP16 | FL_CPU_HYPERVISOR;
    fl_cpu_id emr = {"GenuineIntel", 6, 0xCF, 2, -1, -1, emr_f | popcnt};
    fl_cpu_id emr_nobitalg = {"GenuineIntel", 6, 0xCF, 2, -1, -1, emr_f | FL_CPU_AVX512_VPOPCNTDQ};
    assert_false(avail_for(skx.features) & p);
    assert_false(avail_for(emr_nobitalg.features) & p);
    assert_false(avail_for(avx512 & ~FL_CPU_AVX512_USABLE & ~FL_CPU_OS_ZMM) & p); /* no ZMM state */
    assert_true(avail_for(icx.features) & p);
    assert_true(avail_for(emr.features) & p);
    int e = fl_entry_find("vqf.contains");
    assert_true(e >= 0);
    const fl_cpu_id *cpus[] = {&skx, &emr_nobitalg, &icx, &emr};
    for (size_t i = 0; i < 4; i++)
        for (int cls = 0; cls < FL_SIZE_CLASSES; cls++) {
            const char *why = NULL;
            int c = fl_rule_choice(cpus[i], (size_t)e, cls, avail_for(cpus[i]->features), &why);
            assert_true(avail_for(cpus[i]->features) & (1u << c));
            /* Measured on Emerald Rapids (the rule); elsewhere today's choice. */
            assert_int_equal(c, cpus[i] == &emr ? FL_CAND_AVX512_POPCNT : FL_CAND_AVX512);
            if (cpus[i] == &emr) assert_non_null(strstr(why, "avx512-popcnt"));
        }
    /* This process: the candidate's table exactly where the build and the CPU have it. */
    const uint32_t need = fl_cand_needs[FL_CAND_AVX512_POPCNT];
    const fl_kernel_table *pt = fl_cand_table(FL_CAND_AVX512_POPCNT);
    assert_int_equal(pt != NULL, FL_HAVE_AVX512_POPCNT && (fl_cpu_features() & need) == need);
    if (!pt) return;
    for (size_t i = 0; i < fl_nentries; i++) {
        int ks[FL_NCAND];
        size_t nk = fl_entry_kernels(i, ks), has = 0;
        for (size_t k = 0; k < nk; k++) has |= ks[k] == FL_CAND_AVX512_POPCNT;
        assert_int_equal(has, (int)i == e); /* its own kernel in vqf.contains alone */
    }
}

static void overrides_and_api(void **state) {
    (void)state;
    const char *k, *why;
    assert_int_equal(fl_kernel_select("scalar"), FL_OK);
    for (size_t e = 0; e < fl_kernel_entry_count(); e++) {
        assert_int_equal(fl_kernel_choice(fl_kernel_entry_name(e), FL_SIZE_LLC, &k, &why), FL_OK);
        assert_string_equal(k, "scalar");
        assert_string_equal(why, "selected with fl_kernel_select()");
    }
    assert_int_equal(fl_kernel_select("auto"), FL_OK);
    assert_string_equal(fl_kernel_active(), "auto");
    assert_int_equal(fl_kernel_choice("bloom.contains.block512", FL_SIZE_L1, &k, &why), FL_OK);
    assert_string_equal(k, "scalar"); /* the wisdom again */
    assert_int_equal(fl_kernel_choice("nosuch", 0, &k, &why), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_kernel_choice("hash.u64", 4, &k, &why), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_kernel_choice("hash.u64", -1, &k, &why), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_kernel_choice("hash.u64", 0, NULL, &why), FL_ERR_INVALID_ARG);
    assert_null(fl_kernel_entry_name(fl_kernel_entry_count()));
    assert_null(fl_size_class_name(FL_SIZE_CLASSES));
    assert_string_equal(fl_size_class_name(FL_SIZE_DRAM), "DRAM");
    assert_false(fl_kernel_entry_sized((size_t)fl_entry_find("hash.u64")));
    assert_true(fl_kernel_entry_sized((size_t)fl_entry_find("cms.query")));
    /* A bound filter ignores the automatic choice. */
    fl_filter *f;
    assert_int_equal(fl_create_for(FL_BLOCK512, 1000, 0.01, &f), FL_OK);
    assert_string_equal(fl_filter_kernel(f), "auto");
    assert_int_equal(fl_filter_bind_kernel(f, "scalar"), FL_OK);
    assert_string_equal(fl_filter_kernel(f), "scalar");
    fl_free(f);
}

/* fl_kernel_choice_for: a geometry's lookup entry at its payload's size class, the same
 * answer fl_kernel_choice gives for that entry; refused for bad arguments. */
static void choice_for_geometry(void **state) {
    (void)state;
    uint64_t lim[3];
    assert_int_equal(fl_size_class_limits(lim), FL_OK);
    const struct {
        fl_variant v;
        uint32_t k;
        const char *entry;
    } cases[] = {{FL_CLASSIC, 7, "bloom.contains.classic"},
                 {FL_BLOCK512, 8, "bloom.contains.block512"},
                 {FL_SPLIT256, 8, "bloom.contains.split256"},
                 {FL_REG64, 6, "bloom.contains.reg64"},
                 {FL_CUCKOO, 8, "cuckoo.contains.fp8"},
                 {FL_CUCKOO, 12, "cuckoo.contains.fp12"},
                 {FL_CUCKOO, 13, "cuckoo.contains.fp13"},
                 {FL_CUCKOO, 11, "cuckoo.contains.fp11"},
                 {FL_CUCKOO, 16, "cuckoo.contains.fp16"},
                 {FL_COUNTING, 7, "counting.contains.classic"},
                 {FL_COUNTING512, 7, "counting.contains.blocked"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fl_variant_info vi;
        assert_int_equal(fl_variant_describe(cases[i].v, &vi), FL_OK);
        /* a payload in each size class: 1 KiB, then just past each limit */
        uint64_t sizes[4] = {1024, lim[0] + 4096, lim[1] + 4096, lim[2] + 4096};
        for (int c = 0; c < FL_SIZE_CLASSES; c++) {
            fl_geometry g = {.variant = cases[i].v, .k = cases[i].k};
            size_t unit = fl_variant_unit_bytes(cases[i].v, cases[i].k);
            assert_true(unit > 0);
            g.units = sizes[c] / unit + 1;
            const char *k1, *r1, *k2, *r2;
            assert_int_equal(fl_kernel_choice_for(&g, &k1, &r1), FL_OK);
            assert_int_equal(fl_kernel_choice(cases[i].entry, c, &k2, &r2), FL_OK);
            assert_string_equal(k1, k2);
            assert_string_equal(r1, r2);
        }
    }
    const char *k, *r;
    fl_geometry bad = {.variant = FL_CLASSIC, .units = 0, .k = 7};
    assert_int_equal(fl_kernel_choice_for(&bad, &k, &r), FL_ERR_INVALID_ARG);
    assert_int_equal(fl_kernel_choice_for(NULL, &k, &r), FL_ERR_INVALID_ARG);
}

int main(void) {
    setenv("FILTERLAB_KERNEL", "bogus", 1);
    /* A wisdom file for this CPU, written before the first kernel use reads it. The
     * key and format come from the library's internals, which do not start dispatch. */
    snprintf(wisdom_file, sizeof wisdom_file, "/tmp/fl-test-wisdom-%ld", (long)getpid());
    fl_wisdom_key here;
    fl_wisdom_key_here(&here);
    size_t len;
    char *text = fake_wisdom(&here, "2026-01-02", 0, &len); /* no fl_cand_table: it starts dispatch */
    FILE *fp = fopen(wisdom_file, "wb");
    if (!fp || fwrite(text, 1, len, fp) != len || fclose(fp) != 0) {
        fprintf(stderr, "cannot write %s\n", wisdom_file);
        return 1;
    }
    free(text);
    setenv("FILTERLAB_WISDOM", wisdom_file, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(env_override_unknown_name),
        cmocka_unit_test(wisdom_used_at_first_use),
        cmocka_unit_test(choice_runs_group_agreeing_classes),
        cmocka_unit_test(describe_and_select),
        cmocka_unit_test(bind_per_filter),
        cmocka_unit_test(wisdom_rejected_with_reason),
        cmocka_unit_test(rules_on_fake_cpus),
        cmocka_unit_test(avx512_popcnt_needs_its_bits),
        cmocka_unit_test(overrides_and_api),
        cmocka_unit_test(choice_for_geometry),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(wisdom_file);
    return rc;
}
