#!/usr/bin/env bash
# End-to-end tests of the `filterlab` command.
#
#   tests/cli/test_cli.sh FILTERLAB_BINARY [FAILMALLOC_SO]
#   tests/cli/test_cli.sh --parquet-mr FILTERLAB_BINARY INTEROP_DIR
#
# FAILMALLOC_SO (tests/failmalloc.c) enables the out-of-memory checks.
# The checks named "parquet-mr: ..." need parquet-mr's bloom_filter.xxhash.bin, a file the
# repository does not carry (meson passes ../shared/interop): only --parquet-mr runs them, and
# it exits 77 (meson: SKIP) when the file is absent. The other Parquet checks use a bitset
# filterlab writes itself.
# Prints `ok - NAME` or `not ok - NAME` per check (details of failures go to stderr), then
# `N passed, M failed`; exits non-zero if any check failed.
#
# Checks whose outcome depends on false positives use FPR 1e-6 and at most a few thousand
# keys; since hashing is deterministic, they either always pass or always fail for a given
# build (a failure would be a ~0.1% coincidence, not flakiness).
set -u

MODE=main
if [ "${1:-}" = --parquet-mr ]; then
    MODE=parquet-mr
    shift
fi
FL=${1:?usage: test_cli.sh [--parquet-mr] FILTERLAB_BINARY [FAILMALLOC_SO | INTEROP_DIR]}
FAILMALLOC=
PQ_MR=
if [ "$MODE" = parquet-mr ]; then
    PQ_MR=${2:?usage: test_cli.sh --parquet-mr FILTERLAB_BINARY INTEROP_DIR}/bloom_filter.xxhash.bin
else
    FAILMALLOC=${2:-}
fi
# The checks run in a scratch directory: make the paths absolute first.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case $FL in /*) ;; *) FL=$PWD/$FL ;; esac
case $PQ_MR in /*|'') ;; *) PQ_MR=$PWD/$PQ_MR ;; esac
case $FAILMALLOC in /*|'') ;; *) FAILMALLOC=$PWD/$FAILMALLOC ;; esac
[ -x "$FL" ] || { echo "not an executable: $FL" >&2; exit 1; }
if [ "$MODE" = parquet-mr ] && [ ! -r "$PQ_MR" ]; then
    echo "SKIP: $PQ_MR is absent (parquet-mr's file, from apache/parquet-testing's data/; not part of this repository)"
    exit 77
fi
# The library picks its kernel from the environment: tests choose explicitly. No wisdom
# file either (a `filterlab tune` run in $HOME would change the choices), unless a test
# names one.
unset FILTERLAB_KERNEL
export FILTERLAB_WISDOM=off

T=$(mktemp -d "${TMPDIR:-/tmp}/filterlab-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

. "$HERE/lib.sh"
VARIANTS="classic block512 split256 reg64 cuckoo counting counting512"

# --parquet-mr runs the "parquet-mr: " checks, the main mode all the others.
check_selected() {
    case $1 in
        "parquet-mr: "*) [ "$MODE" = parquet-mr ] ;;
        *) [ "$MODE" = main ] ;;
    esac
}

same_file() { cmp -s "$1" "$2" || fail "$1 and $2 differ"; }

# ---- fixtures -------------------------------------------------------------------------
awk 'BEGIN { for (i = 1; i <= 2000; i++) print "key-" i }' >keys.txt
awk 'BEGIN { for (i = 1; i <= 2000; i++) print "absent-" i }' >absent.txt
# Interleaved present/absent lines and the --mark answer expected for them.
awk 'BEGIN { for (i = 1; i <= 300; i++) { print "key-" i; print "absent-" i } }' >mixed.txt
awk 'BEGIN { for (i = 1; i <= 300; i++) { print 1; print 0 } }' >mixed.mark
awk 'NR % 2 == 1' mixed.txt >mixed.present
awk 'NR % 2 == 0' mixed.txt >mixed.absent

# ---- general --------------------------------------------------------------------------
t_version() {
    expect_ok "$FL" --version
    grep -Eq '^filterlab [0-9]+\.[0-9]+\.[0-9]+' out || fail "version line: $(cat out)"
}
check "version" t_version

t_help() {
    expect_ok "$FL" --help
    for c in params build query dedup info kernels import-parquet export-parquet; do
        grep -q "^  $c " out || fail "--help does not list $c"
    done
    for c in params build query dedup info kernels import-parquet export-parquet; do
        expect_ok "$FL" "$c" --help
        grep -q '^Usage: filterlab' out || fail "$c --help has no usage line"
    done
}
check "help lists and documents every subcommand" t_help

t_usage_errors() {
    expect_error 1 "$FL"
    expect_error 1 "$FL" frobnicate
    expect_error 1 "$FL" --bogus params
    expect_error 1 "$FL" --kernel
    expect_error 1 "$FL" --max-bytes lots info x.flt
    expect_error 1 "$FL" params --n 10
    expect_error 1 "$FL" params --n 10 --fpr 0.1 --bogus
    expect_error 1 "$FL" params --n 10 --fpr 0.1 stray
    expect_error 1 "$FL" params --n 10 --fpr 0.1 --help=yes
    expect_error 1 "$FL" params --n 10 --fpr 0.1 --type bogus
    expect_error 1 "$FL" build --n 10 --fpr 0.1 -o x.flt
    expect_error 1 "$FL" build --type block512 -o x.flt
    expect_error 1 "$FL" build --type block512 --n 10 --fpr 0.1
    expect_error 1 "$FL" build --type block512 --fpr 0.1 -o x.flt
    expect_error 1 "$FL" build --type block512 --n 10 --fpr 0.1 --bits 1000 -o x.flt
    expect_error 1 "$FL" build --type block512 --units 10 -o x.flt
    expect_error 1 "$FL" build --type block512 --units 10 --k 1000 -o x.flt
    expect_error 1 "$FL" build --type block512 --units 10 --k 6 --n 5 -o x.flt
    expect_error 1 "$FL" build --type cuckoo --units 10 --k 10 -o x.flt
    grep -q 'fingerprint bits must be 8, 11, 12, 13 or 16' err || fail "message: $(cat err)"
    expect_error 1 "$FL" build --type block512 --n 10 --fpr 0.1 --hash md5 -o x.flt
    expect_error 1 "$FL" build --type block512 --n 10 --fpr 0.1 --seed -1 -o x.flt
    expect_error 1 "$FL" build --type block512 --n 10 --fpr 0.1 --seed 0x-1 -o x.flt
    expect_error 1 "$FL" build --type block512 --n 10 --fpr 0.1 --seed 0x0x10 -o x.flt
    expect_error 1 "$FL" build --type block512 --n 10 --fpr 0.1 -o
    expect_error 1 "$FL" query
    expect_error 1 "$FL" query a.flt b.flt
    expect_error 1 "$FL" query a.flt --mark --count
    expect_error 1 "$FL" dedup --n 10
    expect_error 1 "$FL" dedup --n 10 --fpr 2
    expect_error 1 "$FL" info
    expect_error 1 "$FL" kernels extra
    expect_error 1 "$FL" import-parquet in.parquet
    expect_error 1 "$FL" export-parquet x.flt
    [ ! -e x.flt ] || fail "a usage error created x.flt"
}
check "usage errors exit 1 with one stderr line" t_usage_errors

# ---- params ---------------------------------------------------------------------------
t_params_table() {
    expect_ok "$FL" params --n 1000000 --fpr 0.01
    for v in $VARIANTS; do
        grep -Eq "^$v +[0-9]+ (words|blocks|buckets) " out || fail "no row for $v: $(cat out)"
    done
    grep -q 'bits/key' out || fail "no header"
    grep -q 'MiB' out || fail "no human-readable size"
}
check "params prints a row for every variant" t_params_table

t_params_sci() {
    expect_ok "$FL" params --n 1e6 --fpr 1e-2
    grep -q '^block512 ' out || fail "no table: $(cat out)"
    mv out sci.out
    expect_ok "$FL" params --n 1000000 --fpr 0.01
    same_file sci.out out
}
check "params accepts 1e6 for --n" t_params_sci

t_params_type() {
    expect_ok "$FL" params --n 5000 --fpr 0.001 --type reg64
    [ "$(grep -Ec '^(classic|block512|split256|reg64|cuckoo) ' out)" -eq 1 ] || fail "$(cat out)"
    grep -q '^reg64 ' out || fail "no reg64 row"
}
check "params --type prints one variant" t_params_type

t_params_unreachable() {
    # Cuckoo fingerprints are at most 16 bits: 1e-6 is out of its reach.
    expect_ok "$FL" params --n 1000 --fpr 1e-6
    grep -Eq '^cuckoo +n/a: ' out || fail "cuckoo row: $(cat out)"
    grep -Eq '^block512 +[0-9]+ blocks' out || fail "block512 row missing"
    expect_error 1 "$FL" params --n 1000 --fpr 1e-6 --type cuckoo
}
check "params shows unreachable variants; --type makes it an error" t_params_unreachable

t_params_bad_numbers() {
    for n in -5 abc 1.5 0 '' ' 5' 1e400 0x10 99999999999999999999 nan inf; do
        expect_error 1 "$FL" params --n "$n" --fpr 0.01
    done
    for p in 0 1 1.5 -0.1 nan inf abc '' 0.1x 1e-400; do
        expect_error 1 "$FL" params --n 100 --fpr "$p"
    done
}
check "params rejects bad numbers" t_params_bad_numbers

# ---- build and query ------------------------------------------------------------------
t_roundtrip() {
    local v=$1
    expect_ok "$FL" build --type "$v" --n 2000 --fpr 0.01 --input keys.txt -o "$v.flt"
    [ -s "$v.flt" ] || fail "no filter written"
    expect_ok "$FL" query "$v.flt" --input keys.txt
    same_file keys.txt out # every key present, in order: no false negatives
    expect_ok "$FL" query "$v.flt" --count <keys.txt
    [ "$(cat out)" = 2000 ] || fail "count $(cat out)"
    # Some absent keys must be reported absent (a filter answering "yes" always is wrong).
    expect_ok "$FL" query "$v.flt" --input absent.txt --count
    [ "$(cat out)" -lt 200 ] || fail "$(cat out) of 2000 absent keys reported present"
}
for v in $VARIANTS; do
    check "build + query round trip, $v (2000 keys, no false negatives)" t_roundtrip "$v"
done

t_sizing_modes() {
    expect_ok "$FL" build --type block512 --bits 40000 --input keys.txt -o bits.flt
    expect_ok "$FL" info bits.flt
    grep -q 'geometry: *79 blocks of 64 bytes, k = 7' out || fail "--bits geometry: $(cat out)"
    expect_ok "$FL" build --type classic --bits 20000 --n 2000 --input keys.txt -o bitsn.flt
    expect_ok "$FL" info bitsn.flt
    grep -q 'k = 7$' out || fail "--bits --n should pick k = 7: $(cat out)"
    expect_ok "$FL" build --type reg64 --units 500 --k 4 --input keys.txt -o units.flt
    expect_ok "$FL" info units.flt
    grep -q 'geometry: *500 words of 64 bits, k = 4' out || fail "--units geometry: $(cat out)"
    for f in bits bitsn units; do
        expect_ok "$FL" query "$f.flt" --count --input keys.txt
        [ "$(cat out)" = 2000 ] || fail "$f: count $(cat out)"
    done
}
check "build --bits / --bits --n / --units --k" t_sizing_modes

t_seed_hash() {
    expect_ok "$FL" build --type split256 --n 2000 --fpr 0.01 --hash xxh64 --seed 0x2a \
        --input keys.txt -o seeded.flt
    expect_ok "$FL" info seeded.flt
    grep -q '^hash: *xxh64, seed 42 ' out || fail "$(cat out)"
    expect_ok "$FL" query seeded.flt --count --input keys.txt
    [ "$(cat out)" = 2000 ] || fail "count $(cat out)"
    expect_ok "$FL" build --type split256 --n 2000 --fpr 0.01 --input keys.txt -o unseeded.flt
    ! cmp -s seeded.flt unseeded.flt || fail "seed and hash did not change the filter"
}
check "build --seed and --hash" t_seed_hash

t_crlf() {
    printf 'alpha\r\nbeta\r\n\r\ngamma\r\n' >crlf.txt
    expect_ok "$FL" build --type classic --n 100 --fpr 1e-6 --input crlf.txt -o crlf.flt
    printf 'alpha\nbeta\n\ngamma\n' >lf.txt
    expect_ok "$FL" query crlf.flt --input lf.txt --mark
    [ "$(tr -d '\n' <out)" = 1111 ] || fail "LF keys vs CRLF filter: $(cat out)"
    # CRLF input: keys match, printed lines end in '\n' only.
    expect_ok "$FL" query crlf.flt --input crlf.txt
    same_file lf.txt out
    printf 'alpha\r\n' | run "$FL" query crlf.flt --count
    [ "$(cat out)" = 1 ] || fail "CRLF query: $(cat out)"
    # A '\r' that does not end the line is part of the key.
    printf 'alp\rha\n' | run "$FL" query crlf.flt --count
    [ "$(cat out)" = 0 ] || fail "inner CR: $(cat out)"
}
check "CRLF line endings are not part of keys" t_crlf

t_line_edges() {
    # Last line without a newline; an empty line is the empty key; NUL bytes are kept.
    printf 'one\n\ntwo\0zero\nthree' >edge.txt
    expect_ok "$FL" build --type block512 --n 100 --fpr 1e-6 --input edge.txt -o edge.flt
    expect_ok "$FL" info edge.flt
    grep -q '^keys: *4$' out || fail "expected 4 keys: $(cat out)"
    printf 'three\n' | run "$FL" query edge.flt --count
    [ "$(cat out)" = 1 ] || fail "last line without newline"
    printf '\n' | run "$FL" query edge.flt --count
    [ "$(cat out)" = 1 ] || fail "empty key"
    printf 'two\0zero\n' | run "$FL" query edge.flt
    printf 'two\0zero\n' >nul.expect
    same_file nul.expect out
    printf 'two\n' | run "$FL" query edge.flt --count
    [ "$(cat out)" = 0 ] || fail "prefix before NUL matched"
    printf 'x\n' >nonempty.txt
    expect_ok "$FL" build --type block512 --n 100 --fpr 1e-6 --input nonempty.txt -o ne.flt
    printf '\n' | run "$FL" query ne.flt --count
    [ "$(cat out)" = 0 ] || fail "empty key present in a filter without it"
}
check "last line without newline, empty lines and NUL bytes are keys" t_line_edges

t_long_line() {
    head -c 3000000 /dev/zero | tr '\0' 'x' >long.txt
    echo >>long.txt
    echo short >>long.txt
    expect_ok "$FL" build --type block512 --n 10 --fpr 1e-6 --input long.txt -o long.flt
    expect_ok "$FL" query long.flt --input long.txt
    same_file long.txt out
}
check "a 3 MB line is one key" t_long_line

t_query_modes() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 1e-6 --input keys.txt -o q.flt
    expect_ok "$FL" query q.flt --input mixed.txt
    same_file mixed.present out
    expect_ok "$FL" query q.flt --input mixed.txt --absent
    same_file mixed.absent out
    expect_ok "$FL" query q.flt --input mixed.txt --mark
    same_file mixed.mark out
    expect_ok "$FL" query q.flt --input mixed.txt --count
    [ "$(cat out)" = 300 ] || fail "count $(cat out)"
    run "$FL" query q.flt --input - <mixed.txt
    same_file mixed.present out
    expect_ok "$FL" query q.flt --count </dev/null
    [ "$(cat out)" = 0 ] || fail "empty input count $(cat out)"
}
check "query default / --absent / --mark / --count keep line order" t_query_modes

t_batches() {
    # More lines than one lookup batch, so batch boundaries are crossed.
    awk 'BEGIN { for (i = 1; i <= 20000; i++) print "k" i }' >many.txt
    awk 'BEGIN { for (i = 1; i <= 20000; i++) { print "k" i; print "miss" i } }' >many2.txt
    expect_ok "$FL" build --type reg64 --n 20000 --fpr 0.001 --input many.txt -o many.flt
    expect_ok "$FL" query many.flt --input many2.txt --mark
    [ "$(wc -l <out)" -eq 40000 ] || fail "mark lines $(wc -l <out)"
    [ "$(awk 'NR % 2 == 1 && $0 != 1' out | wc -l)" -eq 0 ] || fail "false negative"
    expect_ok "$FL" query many.flt --input many2.txt
    awk 'NR % 2 == 1' many2.txt | cmp -s - <(grep -v '^miss' out) || fail "order"
}
check "query across many batches" t_batches

t_build_verbose() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o v.flt
    [ ! -s out ] || fail "stdout not empty"
    run "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o v.flt --verbose
    [ "$RC" -eq 0 ] || fail "status $RC"
    grep -q '^filterlab: build: 2000 lines' err || fail "summary: $(cat err)"
    [ ! -s out ] || fail "--verbose wrote to stdout"
}
check "build is silent unless --verbose" t_build_verbose

t_build_stdout() {
    "$FL" build --type classic --n 2000 --fpr 0.01 -o - <keys.txt >piped.flt || fail "status"
    expect_ok "$FL" build --type classic --n 2000 --fpr 0.01 -o file.flt --input keys.txt
    same_file piped.flt file.flt
}
check "build -o - writes the filter to stdout" t_build_stdout

# write_fifo FIFO RESULT CMD...: runs CMD (which writes FIFO) while `cat` drains the FIFO into
# RESULT; the reader is killed rather than left blocked if CMD fails or replaced the FIFO.
write_fifo() {
    local fifo=$1 result=$2
    shift 2
    mkfifo "$fifo"
    cat "$fifo" >"$result" &
    local pid=$!
    run "$@"
    if [ "$RC" -ne 0 ] || [ ! -p "$fifo" ]; then
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        [ -p "$fifo" ] || fail "the FIFO was replaced by a regular file"
        fail "status $RC: $(cat "$T/err")"
    fi
    wait "$pid"
}

t_build_fifo() {
    # Saving replaces regular files atomically, but must write through a FIFO or device
    # rather than replace it with a regular file.
    write_fifo out.fifo fifo.flt \
        "$FL" build --type classic --n 2000 --fpr 0.01 -o out.fifo --input keys.txt
    same_file file.flt fifo.flt
    expect_ok "$FL" build --type split256 --units 32 --k 8 --hash xxh64 --input keys.txt -o pqf.flt
    expect_ok "$FL" export-parquet pqf.flt -o pqf.parquet
    write_fifo imp.fifo imp.flt "$FL" import-parquet pqf.parquet -o imp.fifo
    expect_ok "$FL" info imp.flt
    # A symbolic link is written through too, not replaced.
    ln -s target.flt link.flt
    expect_ok "$FL" build --type classic --n 2000 --fpr 0.01 -o link.flt --input keys.txt
    [ -L link.flt ] || fail "the symbolic link was replaced"
    same_file file.flt target.flt
}
check "saving to a FIFO or symlink writes through it" t_build_fifo

t_cuckoo_full() {
    rm -f full.flt
    # One bucket (4 slots) plus the stash cannot take 2000 keys.
    expect_error 2 "$FL" build --type cuckoo --units 1 --k 8 --input keys.txt -o full.flt
    grep -q 'full after [0-9][0-9]* keys' err || fail "message: $(cat err)"
    [ ! -e full.flt ] || fail "an output file was written"
}
check "build: full cuckoo filter exits 2 and writes nothing" t_cuckoo_full

t_cuckoo_unique() {
    # 20 copies of 5 keys overflow a key's two buckets unless duplicates are skipped.
    for _ in $(seq 20); do printf 'a\nb\nc\nd\ne\n'; done >dups.txt
    expect_ok "$FL" build --type cuckoo --n 100 --fpr 0.01 --unique --input dups.txt -o u.flt
    expect_ok "$FL" info u.flt
    grep -q '^keys: *5$' out || fail "$(cat out)"
}
check "build --unique skips keys already present" t_cuckoo_unique

t_cuckoo_widths() {
    local k
    head -n 1000 keys.txt >first.txt
    tail -n +1001 keys.txt >rest.txt
    # --fpr picks the width of fewest bytes: 8 bits at 3%, 11 (semi-sorted, 5-byte buckets)
    # at 0.5%, 12 at 0.25%, 13 (semi-sorted, 12's bytes) at 0.1%, 16 at 0.01%.
    for k in 8:0.03 11:0.005 12:0.0025 13:0.001 16:0.0001; do
        expect_ok "$FL" build --type cuckoo --n 2000 --fpr "${k#*:}" --input keys.txt -o w.flt
        expect_ok "$FL" info w.flt
        grep -q "^geometry: .*, ${k%%:*}-bit fingerprints$" out || fail "fpr ${k#*:}: $(cat out)"
    done
    # An explicit width: every key found, deletes, the rest still found, a refused delete.
    for k in 8 11 12 13 16; do
        expect_ok "$FL" build --type cuckoo --units 600 --k "$k" --input keys.txt -o "w$k.flt"
        expect_ok "$FL" query "w$k.flt" --input keys.txt
        same_file keys.txt out
        expect_ok "$FL" delete "w$k.flt" --input first.txt
        expect_ok "$FL" info "w$k.flt"
        grep -q '^keys: *1000$' out || fail "keys after delete: $(cat out)"
        expect_ok "$FL" query "w$k.flt" --input rest.txt
        same_file rest.txt out
        cp "w$k.flt" before.flt
        expect_error 2 "$FL" delete "w$k.flt" --input first.txt
        cmp -s before.flt "w$k.flt" || fail "a refused delete changed the file"
    done
}
check "cuckoo: --fpr picks 8, 11, 12, 13 or 16-bit fingerprints; --k N builds, finds, deletes" t_cuckoo_widths

# ---- dedup ----------------------------------------------------------------------------
awk 'BEGIN { srand(7); for (i = 0; i < 3000; i++) { r = int(rand() * 800);
             if (r < 5) print ""; else print "line-" r } }' >dup.txt
awk '!seen[$0]++' dup.txt >dup.expect

t_dedup() {
    local v=$1
    expect_ok "$FL" dedup --n 1000 --fpr 1e-6 --type "$v" --input dup.txt
    same_file dup.expect out
}
# shellcheck disable=SC2016 # $0..$2 are sh's positional parameters
check "dedup equals awk '!seen[\$0]++' (default type)" \
    sh -c '"$0" dedup --n 1000 --fpr 1e-6 <"$1" | cmp -s - "$2"' "$FL" dup.txt dup.expect
for v in block512 classic; do
    check "dedup equals awk '!seen[\$0]++' ($v, fpr 1e-6)" t_dedup "$v"
done

t_dedup_cuckoo_full() {
    expect_error 2 "$FL" dedup --n 10 --fpr 0.01 --type cuckoo --input keys.txt
    grep -q 'full' err || fail "message: $(cat err)"
    [ "$(wc -l <out)" -gt 0 ] || fail "lines before the failure were not printed"
}
check "dedup: full cuckoo filter exits 2" t_dedup_cuckoo_full

# ---- info -----------------------------------------------------------------------------
t_info() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --seed 7 --input keys.txt -o i.flt
    expect_ok "$FL" info i.flt
    for field in 'variant: *block512' 'geometry: *[0-9]+ blocks of 64 bytes, k = [0-9]+' \
        'hash: *xxh3, seed 7 ' 'keys: *2000$' 'bytes: *[0-9]+ \([0-9.]+ KiB\)' \
        'bits per key: *[0-9.]+' 'fill: *[0-9.]+% of bits set' \
        'predicted FPR: *[0-9.e-]+ at 2000 keys' 'huge pages: *(yes|no)'; do
        grep -Eq "^$field" out || fail "no '$field' in: $(cat out)"
    done
    expect_ok "$FL" build --type cuckoo --n 2000 --fpr 0.001 --input keys.txt -o ic.flt
    expect_ok "$FL" info ic.flt
    grep -Eq '^fill: *[0-9.]+% load \(2000 of [0-9]+ slots used\)' out || fail "$(cat out)"
    grep -Eq '^stash: *[0-9]+ entries used' out || fail "no stash line: $(cat out)"
}
check "info describes the filter" t_info

# ---- counting Bloom filters and delete -------------------------------------------------
t_counting_delete() {
    local v
    head -n 1000 keys.txt >first.txt
    tail -n +1001 keys.txt >rest.txt
    for v in counting counting512; do
        expect_ok "$FL" build --type "$v" --n 2000 --fpr 0.01 --input keys.txt -o "d$v.flt"
        expect_ok "$FL" info "d$v.flt"
        grep -Eq '^fill: *[0-9.]+% of counters nonzero \([0-9]+ of [0-9]+\)' out || fail "$(cat out)"
        grep -Eq '^saturated: *0 counters' out || fail "no saturated line: $(cat out)"
        expect_ok "$FL" delete "d$v.flt" --input first.txt
        expect_ok "$FL" info "d$v.flt"
        grep -q '^keys: *1000$' out || fail "keys after delete: $(cat out)"
        expect_ok "$FL" query "d$v.flt" --input rest.txt
        same_file rest.txt out # the keys not deleted are all still present
        # Deleted again: refused (all or nothing), the file unchanged.
        cp "d$v.flt" before.flt
        expect_error 2 "$FL" delete "d$v.flt" --input first.txt
        cmp -s before.flt "d$v.flt" || fail "a refused delete changed the file"
    done
    # 2000 keys into one line of 128 counters: counters saturate, and info says so.
    run "$FL" build --type counting512 --units 1 --k 2 --input keys.txt -o sat.flt
    [ "$RC" -eq 0 ] || fail "status $RC: $(cat err)" # (it warns that the filter is too small)
    expect_ok "$FL" info sat.flt
    grep -Eq '^saturated: *[1-9][0-9]* counters' out || fail "$(cat out)"
    expect_ok "$FL" delete sat.flt --input keys.txt -o sat2.flt
    expect_ok "$FL" query sat2.flt --count --input keys.txt
    [ "$(cat out)" = 2000 ] || fail "saturated counters must keep every key: $(cat out)"
    # Variants that cannot delete say so.
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o nodel.flt
    expect_error 2 "$FL" delete nodel.flt --input first.txt
    expect_error 1 "$FL" delete
}
check "counting filters: info counters, delete, all or nothing, saturation" t_counting_delete

# ---- kernels --------------------------------------------------------------------------
t_kernels() {
    expect_ok "$FL" kernels
    grep -Eq '^scalar +yes +yes +no ' out || fail "$(cat out)"
    grep -Eq '^selected: [a-z0-9]+ \(.+\)$' out || fail "no selected line: $(cat out)"
    expect_ok "$FL" --kernel scalar kernels
    grep -q '^selected: scalar (' out || fail "--kernel scalar not selected: $(cat out)"
    expect_ok "$FL" --kernel scalar query block512.flt --count --input keys.txt
    [ "$(cat out)" = 2000 ] || fail "query on scalar"
    expect_error 1 "$FL" --kernel bogus kernels
    expect_error 1 "$FL" --kernel bogus query block512.flt --input keys.txt
}
check "kernels table and --kernel" t_kernels

# The choice per module entry and size class, and where each comes from.
t_kernel_choice() {
    expect_ok "$FL" kernels
    grep -q '^selected: auto (per module entry and size class: rules for ' out || fail "$(cat out)"
    grep -q '^wisdom: off: FILTERLAB_WISDOM=off$' out || fail "$(cat out)"
    grep -Eq '^bloom\.contains\.classic +(all|L1[-A-Z0-9]*) +[a-z0-9-]+ +rule: ' out || fail "$(cat out)"
    for e in bloom.insert.reg64 cuckoo.contains.fp16 counting.contains.blocked hash.u64 hll.add \
        cms.query fuse.contains.4_16 bloomier.get.3_32; do
        grep -q "^$e " out || fail "no row for $e: $(cat out)"
    done
    ! grep -qi 'fastest' out || fail "says fastest without measuring: $(cat out)"
    FILTERLAB_KERNEL=scalar expect_ok "$FL" kernels
    [ "$(grep -c 'scalar *forced by FILTERLAB_KERNEL=scalar$' out)" -ge 37 ] || fail "$(cat out)"
    # tune --quick writes a file this CPU then uses; a damaged copy is ignored, with the reason.
    expect_ok "$FL" tune --quick -o wisdom.txt
    grep -q '^wrote wisdom.txt$' out || fail "$(cat out)"
    FILTERLAB_WISDOM=$PWD/wisdom.txt expect_ok "$FL" kernels
    grep -q "^wisdom: used: $PWD/wisdom.txt, measured on " out || fail "$(cat out)"
    grep -Eq '^bloom\.contains\.block512 .* measured here on [0-9-]+ by filterlab tune: ' out \
        || fail "$(cat out)"
    # one byte more inside the sealed body (a changed choice need not change anything: on
    # aarch64 scalar may already be the choice)
    sed '0,/^bloom.contains.classic L1 /s/^bloom.contains.classic L1 /bloom.contains.classic  L1 /' \
        wisdom.txt >edited.txt
    ! cmp -s wisdom.txt edited.txt || fail "the edit changed nothing"
    FILTERLAB_WISDOM=$PWD/edited.txt expect_ok "$FL" kernels
    grep -q "^wisdom: ignored: $PWD/edited.txt: checksum mismatch" out || fail "$(cat out)"
    ! grep -q 'measured here' out || fail "$(cat out)"
    # Well sealed but foreign: another CPU, other cache sizes.
    reseal() { sed '$d' "$1" >body.txt; { cat body.txt; echo "sha256 $(sha256sum <body.txt | cut -d' ' -f1)"; } >"$2"; }
    sed 's/^cpu \([^ ]*\) [0-9]*/cpu \1 999/' wisdom.txt >other.txt && reseal other.txt other.txt
    FILTERLAB_WISDOM=$PWD/other.txt expect_ok "$FL" kernels
    grep -q "^wisdom: ignored: .*: written on another CPU" out || fail "$(cat out)"
    sed 's/^limits .*/limits 1024 2048 4096/' wisdom.txt >caches.txt && reseal caches.txt caches.txt
    FILTERLAB_WISDOM=$PWD/caches.txt expect_ok "$FL" kernels
    grep -q "^wisdom: ignored: .*: measured with cache sizes 1024/2048/4096 bytes" out || fail "$(cat out)"
    head -c 100 wisdom.txt >cut.txt
    FILTERLAB_WISDOM=$PWD/cut.txt expect_ok "$FL" kernels
    grep -q "^wisdom: ignored: .*truncated" out || fail "$(cat out)"
    expect_error 1 "$FL" tune extra
    expect_error 1 "$FL" tune --bogus
    : >plainfile
    expect_error 2 "$FL" tune --quick -o plainfile/sub/wisdom
    [ "$(wc -l <err)" -eq 1 ] || fail "$(cat err)"
}
check "kernels: per-entry choice, tune and the wisdom file" t_kernel_choice

# ---- host -----------------------------------------------------------------------------
t_host() {
    expect_ok "$FL" host --json
    /usr/bin/python3 -c '
import json, re, sys
h = json.load(open(sys.argv[1]))
hid = h["host_id"]
assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*-[0-9]+c-[0-9a-f]{4}", hid), hid
assert h["uarch"] and h["uarch_source"], h
' out || fail "host --json: $(cat out)"
    expect_ok "$FL" host
    [ -s out ] || fail "host printed nothing"
    expect_error 1 "$FL" host --bogus
}
check "host describes the machine; --json is JSON with a host id" t_host

t_kernel_env() {
    FILTERLAB_KERNEL=bogus expect_error 1 "$FL" params --n 10 --fpr 0.1
    grep -q '^filterlab: FILTERLAB_KERNEL: ' err || fail "message: $(cat err)"
    [ ! -s out ] || fail "ran anyway"
    FILTERLAB_KERNEL=bogus expect_error 1 "$FL" query block512.flt --input keys.txt
    [ ! -s out ] || fail "ran anyway"
    # kernels shows what could be chosen, then still fails.
    FILTERLAB_KERNEL=bogus expect_error 1 "$FL" kernels
    grep -q '^scalar ' out || fail "no table"
    FILTERLAB_KERNEL=bogus expect_ok "$FL" query --help
    # An explicit --kernel overrides the variable.
    FILTERLAB_KERNEL=bogus expect_ok "$FL" --kernel scalar query block512.flt --input keys.txt
    FILTERLAB_KERNEL=scalar expect_ok "$FL" query block512.flt --count --input keys.txt
    [ "$(cat out)" = 2000 ] || fail "FILTERLAB_KERNEL=scalar"
}
check "FILTERLAB_KERNEL=bogus refuses to run (exit 1)" t_kernel_env

# ---- bad files ------------------------------------------------------------------------
t_bad_files() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o good.flt
    local size
    size=$(wc -c <good.flt)
    head -c $((size - 1)) good.flt >truncated.flt
    head -c 20 good.flt >short.flt
    : >empty.flt
    cp good.flt flipped.flt
    printf '\377' | dd of=flipped.flt bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
    cp good.flt header.flt
    printf '\377' | dd of=header.flt bs=1 seek=12 conv=notrunc 2>/dev/null
    cat good.flt good.flt >trailing.flt
    head -c 4096 /dev/urandom >junk.flt
    mkdir -p adir
    for f in truncated short empty flipped header trailing junk missing adir keys.txt; do
        [ -e "$f.flt" ] && f=$f.flt
        expect_error 2 "$FL" query "$f" --input keys.txt
        [ ! -s out ] || fail "$f: output on a bad file"
        expect_error 2 "$FL" info "$f"
        expect_error 2 "$FL" export-parquet "$f" -o x.bin
    done
}
check "corrupt, truncated and missing filter files exit 2" t_bad_files

t_max_bytes() {
    expect_error 2 "$FL" --max-bytes 1K info block512.flt
    expect_ok "$FL" --max-bytes 1M info block512.flt
    expect_ok "$FL" --max-bytes 0 info block512.flt
}
check "--max-bytes caps filter loads" t_max_bytes

t_input_errors() {
    expect_error 2 "$FL" query block512.flt --input missing.txt
    mkdir -p adir
    expect_error 2 "$FL" query block512.flt --input adir
    expect_error 2 "$FL" build --type block512 --n 10 --fpr 0.1 --input missing.txt -o m.flt
    [ ! -e m.flt ] || fail "m.flt written"
    expect_error 2 "$FL" build --type block512 --n 10 --fpr 0.1 --input keys.txt -o adir/x/y.flt
    expect_error 2 "$FL" dedup --n 10 --fpr 0.1 --input missing.txt
}
check "unreadable input and unwritable output exit 2" t_input_errors

t_write_errors() {
    [ -w /dev/full ] || { echo "no /dev/full: skipped"; return 0; }
    "$FL" query block512.flt --input keys.txt >/dev/full 2>err && fail "status 0 on /dev/full"
    [ "$(wc -l <err)" -eq 1 ] || fail "stderr: $(cat err)"
    grep -q '^filterlab: ' err || fail "stderr: $(cat err)"
    "$FL" params --n 10 --fpr 0.1 >/dev/full 2>err && fail "params: status 0 on /dev/full"
    grep -q '^filterlab: ' err || fail "stderr: $(cat err)"
}
check "write errors on stdout exit non-zero with one line" t_write_errors

t_epipe() {
    awk 'BEGIN { for (i = 1; i <= 300000; i++) print "k" i }' >big.txt
    expect_ok "$FL" build --type block512 --n 300000 --fpr 0.01 --input big.txt -o big.flt
    "$FL" query big.flt --input big.txt 2>err | head -n 1 >first
    local st=${PIPESTATUS[0]}
    [ "$st" -eq 0 ] || fail "status $st"
    [ "$(cat first)" = k1 ] || fail "first line: $(cat first)"
    [ ! -s err ] || fail "stderr: $(cat err)"
    "$FL" dedup --n 300000 --fpr 0.01 --input big.txt 2>err | head -n 1 >/dev/null
    st=${PIPESTATUS[0]}
    [ "$st" -eq 0 ] || fail "dedup status $st"
    [ ! -s err ] || fail "dedup stderr: $(cat err)"
}
check "a closed pipe (| head) ends quietly" t_epipe

# ---- Parquet --------------------------------------------------------------------------
# PQ: a Parquet bitset with its Thrift header, the layout parquet-mr writes (16 + 1024 bytes),
# made here from a split256 filter with the spec's hash (XXH64, seed 0).
PQ=own.parquet

t_own_parquet() {
    printf 'hello\nparquet\nbloom\nfilter\n' >pq.keys
    expect_ok "$FL" build --type split256 --units 32 --k 8 --hash xxh64 --input pq.keys -o own.flt
    expect_ok "$FL" export-parquet own.flt -o "$PQ"
    [ "$(wc -c <"$PQ")" -eq 1040 ] || fail "$PQ has $(wc -c <"$PQ") bytes, expected 16 + 1024"
    expect_ok "$FL" import-parquet "$PQ" -o own2.flt
    expect_ok "$FL" query own2.flt --input pq.keys
    same_file pq.keys out
    expect_ok "$FL" export-parquet own2.flt -o own2.parquet
    same_file "$PQ" own2.parquet
}
check "export-parquet writes a header + 32 blocks that import back to the same bits" t_own_parquet

t_import() {
    expect_ok "$FL" import-parquet "$PQ_MR" -o pq.flt
    printf 'hello\nparquet\nbloom\nfilter\n' >pq.keys
    expect_ok "$FL" query pq.flt --input pq.keys
    same_file pq.keys out
    expect_ok "$FL" info pq.flt
    grep -q '^variant: *split256' out || fail "$(cat out)"
    grep -q '^hash: *xxh64, seed 0 ' out || fail "$(cat out)"
}
check "parquet-mr: import-parquet: hello/parquet/bloom/filter all present" t_import

t_export() {
    expect_ok "$FL" import-parquet "$PQ_MR" -o pq2.flt
    expect_ok "$FL" export-parquet pq2.flt -o pq.bin
    same_file "$PQ_MR" pq.bin
    expect_ok "$FL" export-parquet pq2.flt -o pq.raw --no-header
    tail -c 1024 "$PQ_MR" >pq.expect.raw
    same_file pq.expect.raw pq.raw
    # A bare bitset imports too and answers the same.
    expect_ok "$FL" import-parquet pq.raw -o pq3.flt
    printf 'hello\nparquet\nbloom\nfilter\n' | run "$FL" query pq3.flt --count
    [ "$(cat out)" = 4 ] || fail "bare bitset: $(cat out)"
}
check "parquet-mr: export-parquet round trip is byte-identical" t_export

# The README's tour builds its Parquet file this way instead of importing parquet-mr's.
t_own_equals_mr() {
    printf 'hello\nparquet\nbloom\nfilter\n' >mr.keys
    expect_ok "$FL" build --type split256 --units 32 --k 8 --hash xxh64 --input mr.keys -o mr.flt
    expect_ok "$FL" export-parquet mr.flt -o mr.parquet
    same_file "$PQ_MR" mr.parquet
}
check "parquet-mr: the same four words exported here give parquet-mr's bytes" t_own_equals_mr

t_parquet_errors() {
    head -c 1000 "$PQ" >odd.bin
    expect_error 2 "$FL" import-parquet odd.bin -o odd.flt
    [ ! -e odd.flt ] || fail "odd.flt written"
    expect_error 2 "$FL" import-parquet missing.bin -o m.flt
    expect_error 2 "$FL" import-parquet "$PQ" --max-bytes 100 -o m.flt
    expect_error 2 "$FL" --max-bytes 100 import-parquet "$PQ" -o m.flt
    expect_ok "$FL" --max-bytes 100 import-parquet "$PQ" --max-bytes 2K -o m.flt
    expect_error 2 "$FL" export-parquet block512.flt -o b.bin
    [ ! -e b.bin ] || fail "b.bin written"
}
check "Parquet errors exit 2" t_parquet_errors


# ---- data safety: a failed write keeps the old file, no temporaries left ---------------
# limited KB CMD...: run CMD under `ulimit -f KB` (1024-byte blocks in bash).
limited() {
    local kb=$1
    shift
    run bash -c 'ulimit -f "$0"; exec "$@"' "$kb" "$@"
}
no_temp_files() {
    local left
    left=$(find . -name '*.tmp.*' | head -5)
    [ -z "$left" ] || fail "temporary files left behind: $left"
}

# Finding 1: a failed export keeps the old file (it used to truncate it in place, and the
# truncated bare bitset then imported cleanly and missed most keys).
t_export_atomic() {
    expect_ok "$FL" build --type split256 --units 8192 --k 8 --hash xxh64 --input keys.txt -o big.flt
    expect_ok "$FL" export-parquet big.flt --no-header -o bare.bin
    cp bare.bin bare.orig
    limited 100 "$FL" export-parquet big.flt --no-header -o bare.bin
    [ "$RC" -eq 2 ] || fail "status $RC, expected 2 :: $(cat err)"
    grep -q "^filterlab: cannot write 'bare.bin': File too large" err || fail "stderr: $(cat err)"
    same_file bare.orig bare.bin
    no_temp_files
    expect_ok "$FL" import-parquet bare.bin -o rb.flt
    expect_ok "$FL" query rb.flt --count --input keys.txt
    [ "$(cat out)" = 2000 ] || fail "re-imported bitset finds $(cat out) of 2000 keys"
}
check "a failed export-parquet keeps the previous file (file-size limit)" t_export_atomic

# Finding 4: SIGXFSZ during a save is an error with the old file kept and no temporary left.
t_save_fsize() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o keep.flt
    cp keep.flt keep.orig
    limited 100 "$FL" build --type block512 --units 8192 --k 6 --input keys.txt -o keep.flt
    [ "$RC" -eq 2 ] || fail "status $RC, expected 2 :: $(cat err)"
    grep -q "File too large" err || fail "stderr: $(cat err)"
    same_file keep.orig keep.flt
    no_temp_files
}
check "a save past the file-size limit exits 2, keeps the old file, leaves no temporary" t_save_fsize

# Finding 3: saving through a symbolic link replaces the target atomically; the link stays.
t_save_symlink() {
    mkdir -p linkdir
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o linkdir/real.flt
    cp linkdir/real.flt real.orig
    ln -sf linkdir/real.flt via.flt
    limited 100 "$FL" build --type block512 --units 8192 --k 6 --input keys.txt -o via.flt
    [ "$RC" -eq 2 ] || fail "status $RC, expected 2 :: $(cat err)"
    same_file real.orig linkdir/real.flt
    no_temp_files
    expect_ok "$FL" build --type reg64 --n 2000 --fpr 0.01 --input keys.txt -o via.flt
    [ -L via.flt ] || fail "via.flt is no longer a symbolic link"
    expect_ok "$FL" info linkdir/real.flt
    grep -q '^variant: *reg64' out || fail "target not replaced: $(cat out)"
}
check "saving through a symbolic link replaces its target atomically" t_save_symlink

# Finding 2: dedup past --n says so (once, with the predicted FPR) and a closing line; the
# printed lines do not change; --strict makes it an error; -v describes the filter.
t_dedup_capacity() {
    expect_ok "$FL" dedup --n 2000 --fpr 1e-6 --input keys.txt
    same_file keys.txt out
    cp out dedup.within
    run "$FL" dedup --n 100 --fpr 0.01 --no-grow --input keys.txt
    [ "$RC" -eq 0 ] || fail "status $RC :: $(cat err)"
    cp out dedup.over
    [ "$(grep -c 'warning: more than --n 100 distinct lines at line [0-9]*: the predicted FPR' err)" = 1 ] \
        || fail "no single capacity warning: $(cat err)"
    grep -q "^filterlab: dedup: 2000 lines, $(wc -l <dedup.over) printed as new (--n 100); predicted FPR at the end" err \
        || fail "no closing line: $(cat err)"
    [ "$(wc -l <err)" = 2 ] || fail "expected 2 stderr lines: $(cat err)"
    expect_error 2 "$FL" dedup --n 100 --fpr 1e-6 --strict --input keys.txt
    grep -q 'more than --n 100 distinct lines (line 101)' err || fail "$(cat err)"
    head -100 keys.txt | same_file - out
    run "$FL" dedup --n 2000 --fpr 1e-6 --no-grow -v --input keys.txt
    [ "$RC" -eq 0 ] || fail "status $RC"
    same_file dedup.within out
    grep -q '^filterlab: dedup: block512 filter, [0-9]* blocks of 64 bytes, k = [0-9]* (.*), seed 0; sized for 2000 distinct lines at FPR 1e-06 (predicted [0-9.e-]*)$' err \
        || fail "-v: $(cat err)"
}
check "dedup --no-grow warns past --n (or stops with --strict); -v gives geometry and FPR" t_dedup_capacity

# build past --n warns with the predicted FPR at the real count; within --n it stays quiet.
t_build_capacity() {
    run "$FL" build --type block512 --n 500 --fpr 0.01 --input keys.txt -o over.flt
    [ "$RC" -eq 0 ] || fail "status $RC :: $(cat err)"
    grep -q '^filterlab: build: warning: 2000 keys inserted, more than --n 500: predicted FPR 0\.[0-9]* at 2000 keys' err \
        || fail "$(cat err)"
    run "$FL" build --type classic --units 4 --k 3 --input keys.txt -o over.flt
    [ "$RC" -eq 0 ] || fail "status $RC"
    grep -q 'warning: 2000 keys inserted: predicted FPR 1;' err || fail "$(cat err)"
}
check "build warns when the keys exceed --n (or saturate the filter)" t_build_capacity

# Finding 8: a cuckoo build failing on a repeated key advises --unique, not a larger size.
t_cuckoo_repeats() {
    awk 'BEGIN { for (i = 0; i < 20; i++) print "same" }' >same.txt
    expect_error 2 "$FL" build --type cuckoo --n 1000 --fpr 0.01 --input same.txt -o same.flt
    grep -q 'line 17 repeats a key.*use --unique' err || fail "$(cat err)"
    [ ! -e same.flt ] || fail "same.flt written"
    expect_ok "$FL" build --type cuckoo --n 1000 --fpr 0.01 --unique --input same.txt -o same.flt
}
check "cuckoo build on 17 copies of a line advises --unique" t_cuckoo_repeats

# Finding 10: kernels and params under an allocation failure at each allocation in turn:
# the full normal output with status 0, or one error line with status 2, never a table with
# missing cells. Needs the preload injector; not under a sanitizer runtime (which must come
# first in the link order) or an emulator.
t_out_of_memory() {
    local cmd n
    for cmd in "kernels" "params --n 1000 --fpr 0.01" "params --n 1000 --fpr 0.01 --json"; do
        # shellcheck disable=SC2086
        expect_ok "$FL" $cmd
        cp out oom.expect
        for n in $(seq 1 60); do
            # shellcheck disable=SC2086
            run env LD_PRELOAD="$FAILMALLOC" FL_FAIL_ALLOC=$n "$FL" $cmd
            if [ "$RC" -eq 0 ]; then
                same_file oom.expect out
                [ ! -s err ] || fail "$cmd, allocation $n: status 0 with stderr $(cat err)"
            else
                [ "$RC" -eq 2 ] || fail "$cmd, allocation $n: status $RC :: $(cat err)"
                [ "$(wc -l <err)" -eq 1 ] || fail "$cmd, allocation $n: $(cat err)"
            fi
        done
    done
}
if [ -n "$FAILMALLOC" ] && [ -z "${MESON_EXE_WRAPPER:-}" ] &&
    ! ldd "$FL" 2>/dev/null | grep -q 'libasan\|libtsan'; then
    check "kernels and params exit 2 when an allocation fails" t_out_of_memory
fi

# Finding 6: the largest --max-bytes is no limit, not a wrapped 63-byte one.
t_max_bytes_wrap() {
    expect_ok "$FL" import-parquet "$PQ" --max-bytes 18446744073709551615 -o wrap.flt
    expect_ok "$FL" --max-bytes 18446744073709551615 import-parquet "$PQ" -o wrap.flt
}
check "import-parquet --max-bytes 2^64-1 does not wrap" t_max_bytes_wrap

# Finding 10: a hostile FILTERLAB_KERNEL is quoted and cut in the error, one short line.
t_kernel_env_quoted() {
    local long
    long=$(printf 'bad\nline%0300d' 0)
    FILTERLAB_KERNEL=$long expect_error 1 "$FL" params --n 10 --fpr 0.1
    grep -q "^filterlab: FILTERLAB_KERNEL: .*('bad\\\\x0aline0*\.\.\.'; see" err || fail "$(cat err)"
    [ "$(wc -c <err)" -lt 200 ] || fail "message too long: $(wc -c <err) bytes"
    FILTERLAB_KERNEL=$long run "$FL" kernels
    [ "$RC" -eq 1 ] || fail "status $RC"
    grep -q "^selected: .*(FILTERLAB_KERNEL='bad\\\\x0aline0*\.\.\.' is not a compiled kernel" out \
        || fail "$(cat out)"
    ! grep -q '^line0' out || fail "the value spilled over lines: $(cat out)"
}
check "FILTERLAB_KERNEL errors quote and cut the value" t_kernel_env_quoted

# ---- Count-Min: freq and top ------------------------------------------------------------
# A stream where line "w<i>" occurs 60 / i times (i = 1..30), one line per occurrence.
awk 'BEGIN { for (i = 1; i <= 30; i++) for (j = 0; j < int(60 / i); j++) print "w" i }' >zipf.txt
sort zipf.txt | uniq -c | awk '{ print $2 "\t" $1 }' | sort >zipf.truth

t_cms_freq_query() {
    expect_ok "$FL" freq --top 8 -o z.cms zipf.txt
    [ ! -s out ] || fail "-o printed: $(cat out)"
    cut -f1 zipf.truth >distinct.txt
    expect_ok "$FL" freq --from z.cms --query distinct.txt
    # Estimates never below the true counts (and, this sketch being roomy, equal).
    awk -F'\t' '{ print $2 "\t" $1 }' out | sort | join -t "$(printf '\t')" - zipf.truth |
        awk -F'\t' '$2 < $3 { bad = 1; print "under: " $0 } END { exit bad }' || fail "underestimate"
    [ "$(wc -l <out)" -eq 30 ] || fail "lines: $(wc -l <out)"
    expect_ok "$FL" freq --from z.cms --info
    grep -q '^kind: Count-Min sketch (plain update)$' out || fail "$(cat out)"
    grep -q '^shape: 5 rows x 2719 counters of 32 bits' out || fail "$(cat out)"
    grep -q "^total: $(wc -l <zipf.txt)\$" out || fail "$(cat out)"
    grep -q '^candidates: 8 of 8$' out || fail "$(cat out)"
    # More lines on top of the saved sketch; -o - writes the same bytes as -o FILE.
    expect_ok "$FL" freq --from z.cms -o z2.cms zipf.txt
    expect_ok "$FL" freq --from z2.cms --query distinct.txt
    grep -q "^120	w1\$" out || fail "w1 after twice: $(grep 'w1$' out)"
    expect_ok "$FL" freq --from z2.cms -o -
    cmp -s out z2.cms || fail "-o - differs from the file"
}
check "freq: build, save, query, info, add to a saved sketch" t_cms_freq_query

t_cms_top() {
    expect_ok "$FL" top --from z.cms -k 3
    printf '60\tw1\n30\tw2\n20\tw3\n' | cmp -s - out || fail "top 3: $(cat out)"
    expect_ok "$FL" top -k 2 zipf.txt
    printf '60\tw1\n30\tw2\n' | cmp -s - out || fail "top 2 of a stream: $(cat out)"
    # Heavy hitters above 10% of N (N = 229): w1 (60), w2 (30).
    expect_ok "$FL" top --phi 0.1 -k 100 zipf.txt
    printf '60\tw1\n30\tw2\n' | cmp -s - out || fail "phi 0.1: $(cat out)"
    expect_ok "$FL" top --conservative --width 7 --depth 2 -k 1 zipf.txt
    [ "$(cut -f2 out)" = w1 ] || fail "narrow conservative sketch: $(cat out)"
}
check "top: top-k and heavy hitters of a sketch and of a stream" t_cms_top

t_cms_bad_args() {
    expect_error 1 "$FL" freq --epsilon 0 zipf.txt
    expect_error 1 "$FL" freq --delta 1 zipf.txt
    expect_error 1 "$FL" freq --epsilon nan zipf.txt
    expect_error 1 "$FL" freq --width 0 --depth 3 zipf.txt
    expect_error 1 "$FL" freq --width 10 --depth 33 zipf.txt
    expect_error 1 "$FL" freq --width 10 zipf.txt
    expect_error 1 "$FL" freq --width 10 --depth 2 --epsilon 0.1 zipf.txt
    expect_error 1 "$FL" freq --width 4294967295 --depth 32 zipf.txt
    grep -q 'exceeds the allowed limit' err || fail "$(cat err)"
    expect_error 1 "$FL" freq --epsilon 1e-12 zipf.txt
    expect_error 1 "$FL" freq --top 0 zipf.txt
    expect_error 1 "$FL" freq --from z.cms --top 3
    expect_error 1 "$FL" top -k 0 zipf.txt
    expect_error 1 "$FL" top --phi 1 zipf.txt
    expect_error 1 "$FL" top --phi 0.0005 zipf.txt
    expect_error 1 "$FL" top --from z.cms zipf.txt
    expect_error 1 "$FL" freq --query -
}
check "freq/top: bad parameters are usage errors" t_cms_bad_args

t_cms_wrong_files() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o f.flt
    expect_error 2 "$FL" freq --from f.flt
    grep -q 'not a Count-Min sketch' err || fail "$(cat err)"
    expect_error 2 "$FL" top --from f.flt
    printf 'a\nb\n' | run "$FL" count -o h.hll
    expect_error 2 "$FL" top --from h.hll
    grep -q "hll-info" err || fail "$(cat err)"
    expect_error 2 "$FL" query z.cms --input keys.txt
    grep -q "is a Count-Min sketch, not a filter.* (use 'filterlab freq'" err || fail "$(cat err)"
    expect_ok "$FL" freq --width 100 --depth 2 -o plain.cms zipf.txt
    expect_error 2 "$FL" top --from plain.cms
    grep -q 'tracks no candidates' err || fail "$(cat err)"
    head -c 100 z.cms >cut.cms
    expect_error 2 "$FL" freq --from cut.cms
    grep -q 'truncated' err || fail "$(cat err)"
    expect_error 2 "$FL" freq --from absent.cms
    expect_error 2 "$FL" --max-bytes 1000 freq --from z.cms
}
check "freq/top: wrong kinds of file, truncated and oversized sketches" t_cms_wrong_files
# ---- scalable Bloom filters (dedup's default, build --grow) ------------------------------
# Past --n, dedup grows instead of dropping ever more new lines as seen; its FPR
# stays under --fpr (1e-6 here: no line is dropped), silently; --strict still stops.
t_dedup_grows() {
    expect_ok "$FL" dedup --n 100 --fpr 1e-6 --input keys.txt
    same_file keys.txt out
    expect_ok "$FL" dedup --n 50 --fpr 1e-6 --input dup.txt
    same_file dup.expect out
    run "$FL" dedup --n 100 --fpr 1e-6 -v --input keys.txt
    [ "$RC" -eq 0 ] || fail "status $RC"
    same_file keys.txt out
    grep -q '^filterlab: dedup: scalable block512 filter (growth 2, tightening 0.5), seed 0; first sub-filter [0-9]* blocks of 64 bytes, k = [0-9]* (.*) for 100 distinct lines at FPR 5e-07; chain FPR at most 1e-06$' err \
        || fail "-v: $(cat err)"
    grep -q '^filterlab: dedup: 2000 lines, 2000 printed as new (--n 100); 5 sub-filters, .*; predicted FPR at the end [0-9.e-]* (target 1e-06)$' err \
        || fail "-v end: $(cat err)"
    expect_error 2 "$FL" dedup --n 100 --fpr 1e-6 --strict --input keys.txt
    grep -q 'more than --n 100 distinct lines (line 101)' err || fail "$(cat err)"
    head -100 keys.txt | same_file - out
    # within --n the growing default prints what the fixed filter prints
    expect_ok "$FL" dedup --n 2000 --fpr 1e-6 --no-grow --input dup.txt
    cp out fixed.out
    expect_ok "$FL" dedup --n 2000 --fpr 1e-6 --input dup.txt
    same_file fixed.out out
    # cuckoo cannot be chained: it stays fixed-size (and fills up)
    expect_error 2 "$FL" dedup --n 10 --fpr 0.01 --type cuckoo --input keys.txt
}
check "dedup grows past --n by default, FPR under --fpr, no warning" t_dedup_grows

t_build_grow() {
    expect_ok "$FL" build --type block512 --n 100 --fpr 1e-6 --grow --input keys.txt -o g.flt
    expect_ok "$FL" query g.flt --input keys.txt --count
    [ "$(cat out)" = 2000 ] || fail "present keys found: $(cat out)"
    expect_ok "$FL" query g.flt --input absent.txt --count
    [ "$(cat out)" = 0 ] || fail "absent keys found: $(cat out)"
    expect_ok "$FL" query g.flt --input mixed.txt --mark
    same_file mixed.mark out
    expect_ok "$FL" info g.flt
    grep -q '^kind: *scalable Bloom filter' out || fail "$(cat out)"
    grep -q '^keys: *2000$' out || fail "$(cat out)"
    grep -q '^sub-filters: *5$' out || fail "$(cat out)"
    grep -q '^  4 .*; 500 of 1600 keys; target FPR ' out || fail "$(cat out)"
    expect_ok "$FL" build --type classic --n 300 --fpr 0.001 --growth 3 --input keys.txt -o g3.flt
    expect_ok "$FL" info g3.flt
    grep -q '^growth: *3$' out || fail "$(cat out)"
    grep -q '^sub-filters: *3$' out || fail "$(cat out)" # 300 + 900 + 2700
    # a pipe is read once: its kind is judged on the copy in memory
    [ "$(cat g.flt | "$FL" query /dev/stdin --input keys.txt --count)" = 2000 ] \
        || fail "query of a piped chain"
    "$FL" build --type block512 --n 2000 --fpr 1e-6 --input keys.txt -o plain.flt
    [ "$(cat plain.flt | "$FL" query /dev/stdin --input keys.txt --count)" = 2000 ] \
        || fail "query of a piped filter"
    # - is standard output
    "$FL" build --type reg64 --n 100 --fpr 0.01 --grow --input keys.txt -o - >std.flt
    expect_ok "$FL" info std.flt
    grep -q '^variant: *reg64' out || fail "$(cat out)"
}
check "build --grow saves a scalable filter; query and info read it" t_build_grow

t_grow_errors() {
    expect_error 1 "$FL" build --type cuckoo --n 100 --fpr 0.01 --grow --input keys.txt -o x.flt
    expect_error 1 "$FL" build --type block512 --bits 1000 --grow --input keys.txt -o x.flt
    expect_error 1 "$FL" build --type block512 --n 100 --fpr 0.01 --growth 0.5 -o x.flt
    expect_error 1 "$FL" build --type block512 --n 100 --fpr 0.01 --growth x -o x.flt
    [ ! -e x.flt ] || fail "x.flt written"
    expect_ok "$FL" build --type block512 --n 100 --fpr 0.01 --grow --input keys.txt -o g.flt
    # a command given the other kind says so
    expect_error 2 "$FL" export-parquet g.flt -o x.parquet
    grep -q "is a scalable Bloom filter, not a filter (use 'filterlab query'" err ||
        fail "$(cat err)"
    head -c 300 g.flt >cut.flt
    expect_error 2 "$FL" info cut.flt
    grep -q 'truncated\|ends before' err || fail "$(cat err)"
    expect_error 2 "$FL" query cut.flt --input keys.txt
    expect_error 2 "$FL" --max-bytes 64 info g.flt
    grep -q 'max-bytes 64' err || fail "$(cat err)"
}
check "scalable filters: bad options, wrong kind, truncated file, --max-bytes" t_grow_errors

t_build_static() {
    for t in fuse fuse4; do
        for b in 8 16; do
            expect_ok "$FL" build-static --type $t --bits $b --input keys.txt -o s.fuse
            expect_ok "$FL" query s.fuse --input keys.txt --count
            [ "$(cat out)" = 2000 ] || fail "$t/$b: $(cat out) of 2000 keys found"
            expect_ok "$FL" query s.fuse --input mixed.txt --absent
            # absent lines reported absent are a subset of the absent ones (no key among them)
            ! grep -q '^key-' out || fail "$t/$b: a key reported absent"
            expect_ok "$FL" info s.fuse
            grep -q "binary fuse filter, ${t#fuse}" out || grep -q 'binary fuse filter' out || fail "$(cat out)"
        done
    done
    awk '{ print $0 "\t" (NR % 200) }' keys.txt >kv.txt
    expect_ok "$FL" build-static --type bloomier --value-bits 8 --input kv.txt -o s.blm
    expect_ok "$FL" query s.blm --input keys.txt
    paste -d '\t' keys.txt <(awk '{ print NR % 200 }' keys.txt) | cmp -s - out \
        || fail "bloomier values differ"
    expect_ok "$FL" info s.blm
    grep -q 'Bloomier filter, 3-wise, 8-bit values' out || fail "$(cat out)"
    # errors: usage (1) and data (2)
    expect_error 1 "$FL" build-static --type fuse --bits 12 --input keys.txt -o x.fuse
    expect_error 1 "$FL" build-static --type nope --input keys.txt -o x.fuse
    expect_error 1 "$FL" build-static --type bloomier --input kv.txt -o x.fuse
    expect_error 2 "$FL" build-static --type bloomier --value-bits 4 --input kv.txt -o x.fuse
    printf 'a\t1\na\t2\n' >dup.txt
    expect_error 2 "$FL" build-static --type bloomier --value-bits 4 --input dup.txt -o x.fuse
    grep -q 'different values' err || fail "$(cat err)"
    [ ! -e x.fuse ] || fail "x.fuse written"
    head -c 100 s.fuse >cut.fuse
    expect_error 2 "$FL" info cut.fuse
}
check "build-static: fuse and Bloomier filters, query and info read them" t_build_static

t_advise_static() {
    # a one-row advise.csv of this CPU (scalar runs everywhere) is enough for an answer
    mkdir -p adv
    printf '# host_id=test\n# cpu_signature=%s\n' "$("$FL" host | awk '/^signature:/ { print $2 }')" >adv/advise.csv
    printf 'variant,kernel,emulated,target_fpr,filter_bytes,hit_rate,ns_per_lookup\n' >>adv/advise.csv
    printf 'block512,scalar,0,0.01,1000000,0.5,5\n' >>adv/advise.csv
    expect_ok "$FL" advise --n 1000000 --fpr 0.01 --results adv --static
    grep -q 'binary fuse 3-wise, 8-bit: 1.08 MiB (9.04 bits/key' out || fail "no fuse line: $(cat out)"
    grep -q 'build-static --type fuse --bits 8' out || fail "$(cat out)"
    expect_ok "$FL" advise --n 1000000 --fpr 0.001 --results adv --static
    grep -q 'binary fuse 3-wise, 16-bit' out || fail "$(cat out)"
    expect_ok "$FL" advise --n 1000000 --fpr 0.00001 --results adv --static
    grep -q 'no binary fuse filter reaches' out || fail "$(cat out)"
    expect_ok "$FL" advise --n 1000000 --fpr 0.01 --results adv
    ! grep -q 'binary fuse' out || fail "fuse offered without --static"
}
check "advise --static offers the binary fuse filter" t_advise_static
# ---- layered (cmd_layered.c) and compressed (cmd_compress.c) Bloom filters -------------
t_layered() {
    # key-1..key-2000 once, key-1..key-100 three more times: counts 1 and 4 (R = 4)
    { cat keys.txt; for r in 1 2 3; do head -100 keys.txt; done; } >adds.txt
    expect_ok "$FL" layered-build --layers 4 --n 2000 --fpr 0.01 --input adds.txt -o lay.lbf
    expect_ok "$FL" layered-count lay.lbf --input keys.txt
    [ "$(wc -l <out)" -eq 2000 ] || fail "one line per key"
    awk -F '\t' 'NR <= 100 && $1 != 4 { exit 1 } NR > 100 && $1 < 1 { exit 1 }' out ||
        fail "a count below the adds: $(head -3 out)"
    expect_ok "$FL" layered-count lay.lbf --min 4 --input keys.txt
    [ "$(wc -l <out)" -ge 100 ] || fail "--min 4 lost keys"
    expect_ok "$FL" info lay.lbf
    grep -q 'layered Bloom filter' out || fail "info: $(cat out)"
    expect_error 1 "$FL" layered-build -o x.lbf --layers 0 --n 10 --fpr 0.01
    expect_error 1 "$FL" layered-build -o x.lbf --layers 65 --n 10 --fpr 0.01
    expect_error 1 "$FL" layered-build -o x.lbf --layers 2 --fpr 0.01
    expect_error 1 "$FL" layered-build -o x.lbf --layers 2 --n 10 --fpr 0.01 --variant cuckoo
    [ ! -e x.lbf ] || fail "x.lbf written"
    expect_error 2 "$FL" query lay.lbf --input keys.txt
    head -c 200 lay.lbf >cut.lbf
    expect_error 2 "$FL" layered-count cut.lbf --input keys.txt
}
check "layered Bloom filters: counts never below the adds, info, errors" t_layered

t_vqf() {
    expect_ok "$FL" vqf-build --n 2000 --input keys.txt -o v.vqf
    expect_ok "$FL" vqf-query v.vqf --input keys.txt
    same_file out keys.txt
    expect_ok "$FL" vqf-info v.vqf --json
    /usr/bin/python3 -c 'import json,sys; d=json.load(open("out")); sys.exit(d["items"] != 2000 or d["kind"] != "vector_quotient")' ||
        fail "info --json: $(cat out)"
    # deletes: one copy per line, all or nothing
    head -100 keys.txt >first.txt
    expect_ok "$FL" vqf-delete v.vqf --input first.txt -o d.vqf
    expect_ok "$FL" vqf-info d.vqf
    grep -q 'items: 1900 ' out || fail "after deletes: $(cat out)"
    expect_ok "$FL" vqf-query d.vqf --input keys.txt
    tail -1900 keys.txt >rest.txt
    grep -qxFf rest.txt out && [ "$(grep -cxFf rest.txt out)" -eq 1900 ] || fail "a key lost"
    cp d.vqf before.vqf
    printf 'never-inserted-1\nnever-inserted-2\n' >absent.txt
    expect_error 2 "$FL" vqf-delete d.vqf --input absent.txt
    same_file d.vqf before.vqf
    # a filter too small for its lines writes nothing
    expect_error 2 "$FL" vqf-build --n 10 --input keys.txt -o small.vqf
    [ ! -e small.vqf ] || fail "small.vqf written"
    expect_error 1 "$FL" vqf-build --input keys.txt -o x.vqf
    expect_error 1 "$FL" vqf-build --n 10 --input keys.txt
    # other kinds, and a cut file
    expect_error 2 "$FL" query v.vqf --input keys.txt
    grep -q 'vector quotient filter' err || fail "kind not named: $(cat err)"
    head -c 200 v.vqf >cut.vqf
    expect_error 2 "$FL" vqf-query cut.vqf --input keys.txt
    expect_error 2 "$FL" vqf-info keys.txt
}
check "vector quotient filters: build, query, delete (all or nothing), info, errors" t_vqf

# gcf-info --json's field $2 of file $1 (python3's json reader)
gcf_field() {
    "$FL" gcf-info "$1" --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); v=d[sys.argv[1]]; print(sum(v) if isinstance(v, list) else v)' "$2"
}

t_gcf() {
    # a first table for 100 keys (the smallest table holds 3686), lines from standard input
    run "$FL" gcf-build --n 100 -o g.gcf <keys.txt
    [ "$RC" -eq 0 ] || fail "gcf-build: $(cat err)"
    [ "$(gcf_field g.gcf kind)" = growing_cuckoo ] || fail "kind: $(gcf_field g.gcf kind)"
    for f in items items_by_ext; do
        [ "$(gcf_field g.gcf $f)" = 2000 ] || fail "$f: $(gcf_field g.gcf $f)"
    done
    expect_ok "$FL" gcf-query g.gcf --input keys.txt
    same_file out keys.txt
    # gcf-add grows the file's filter: every line of both sets found after it
    seq 1 20000 | sed 's/^/added-/' >more.txt
    cp g.gcf before.gcf
    expect_ok "$FL" gcf-add g.gcf --input more.txt -o grown.gcf
    same_file g.gcf before.gcf
    expect_ok "$FL" gcf-info grown.gcf --json
    /usr/bin/python3 -c 'import json,sys; d=json.load(open("out")); sys.exit(d["items"] != 22000 or d["doublings"] < 2)' ||
        fail "after gcf-add: $(cat out)"
    cat keys.txt more.txt >all.txt
    expect_ok "$FL" gcf-query grown.gcf --input all.txt --count
    [ "$(cat out)" = 22000 ] || fail "gcf-add lost keys: $(cat out)"
    # the size limit stops a growth: nothing written, status 2, the limit named
    cp grown.gcf before.gcf
    seq 1 300000 | sed 's/^/many-/' >many.txt
    expect_error 2 "$FL" --max-bytes 300K gcf-add grown.gcf --input many.txt
    grep -q 'size limit' err || fail "limit not named: $(cat err)"
    same_file grown.gcf before.gcf
    # deletes: one copy per line, all or nothing
    expect_ok "$FL" gcf-delete grown.gcf --input more.txt -o d.gcf
    expect_ok "$FL" gcf-query d.gcf --input keys.txt
    same_file out keys.txt
    cp d.gcf before.gcf
    printf 'never-inserted-1\nnever-inserted-2\n' >absent.txt
    expect_error 2 "$FL" gcf-delete d.gcf --input absent.txt
    same_file d.gcf before.gcf
    # a line added a ninth time has no slot left: refused, nothing written
    for i in 1 2 3 4 5 6 7 8 9; do echo same; done >same.txt
    expect_error 2 "$FL" gcf-build --n 10 --input same.txt -o same.gcf
    grep -q 'full' err || fail "full not said: $(cat err)"
    [ ! -e same.gcf ] || fail "same.gcf written"
    expect_error 1 "$FL" gcf-build --input keys.txt -o x.gcf
    expect_error 1 "$FL" gcf-build --n 10 --input keys.txt
    expect_error 1 "$FL" gcf-build --n 99999999999999999 --input keys.txt -o x.gcf
    # other kinds, and a cut file
    expect_error 2 "$FL" query g.gcf --input keys.txt
    grep -q 'growing cuckoo filter' err || fail "kind not named: $(cat err)"
    expect_error 2 "$FL" vqf-query g.gcf --input keys.txt
    head -c 200 g.gcf >cut.gcf
    expect_error 2 "$FL" gcf-query cut.gcf --input keys.txt
    expect_error 2 "$FL" gcf-info keys.txt
}
check "growing cuckoo filters: build, add (growing), query, delete (all or nothing), info, limits" t_gcf

t_compressed() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o b.flt
    for coder in golomb zstd; do
        run "$FL" compress b.flt -o b.$coder.flz --coder $coder --chunk 1024
        [ "$RC" -eq 0 ] || fail "compress $coder: $(cat err)"
        expect_ok "$FL" decompress b.$coder.flz -o back.flt
        same_file b.flt back.flt
        expect_ok "$FL" compressed-query b.$coder.flz --input mixed.txt
        "$FL" query b.flt --input mixed.txt >want
        same_file out want
        expect_ok "$FL" info b.$coder.flz
        grep -q "coder: *$coder" out || fail "info: $(cat out)"
    done
    expect_error 1 "$FL" compress b.flt -o x.flz --coder gzip
    expect_error 1 "$FL" compress b.flt -o x.flz --chunk 100
    expect_ok "$FL" build --type cuckoo --n 2000 --fpr 0.01 --input keys.txt -o c.flt
    expect_error 1 "$FL" compress c.flt -o x.flz
    [ ! -e x.flz ] || fail "x.flz written"
    expect_ok "$FL" build --type classic --n 2000 --fpr 0.01 --input keys.txt -o k.flt
    run "$FL" compress k.flt -o k.flz
    expect_error 1 "$FL" compressed-query k.flz --input keys.txt
    head -c 300 b.golomb.flz >cut.flz
    expect_error 2 "$FL" compressed-query cut.flz --input keys.txt
    expect_error 2 "$FL" decompress b.flt -o x.flt
}
check "compressed Bloom filters: both coders round-trip, chunked queries, errors" t_compressed

# ---- one convention for every command ---------------------------------------------------
# The commands `filterlab --help` lists (the dispatch table's rows).
commands() { "$FL" --help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'; }

t_main_help() {
    expect_ok "$FL" --help
    # one line per command (man/mkman.sh and help2man read it so), name and summary apart
    awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 }
         on && !/^  [a-z0-9-]+  +[^ ]/ { exit 1 }' out || fail "a wrapped command: $(cat out)"
    grep -q '^Options' out || fail "no Options section"
    grep -Eq '^  -h, --help +show this help$' out || fail "no -h, --help line"
    awk 'length($0) > 80 { exit 1 }' out || fail "a line over 80 columns"
}
check "filterlab --help: one line per command, Options, 80 columns" t_main_help

t_help_every_command() {
    local cmds
    cmds=$(commands)
    [ "$(echo "$cmds" | wc -l)" -ge 20 ] || fail "commands: $cmds"
    for c in $cmds; do
        expect_ok "$FL" "$c" --help
        head -1 out | grep -Eq "^Usage: filterlab (\[[^]]*\] )*$c( |$)" ||
            fail "$c --help: no usage line first"
        # more usage lines start with "  or:" (help2man's SYNOPSIS takes them so)
        awk -v c="$c" 'NR > 1 && /^$/ { exit } NR > 1 && index($0, "  or:  filterlab " c) != 1 { exit 1 }' out ||
            fail "$c --help: a usage line that is not '  or:  filterlab $c'"
        # a description: a paragraph after the usage lines, before the Options section
        awk '/^$/ { blank = 1; next } blank && /^[A-Z]/ && !/^Options:/ { ok = 1 }
             /^Options:$/ { exit } END { exit !ok }' out || fail "$c --help: no description"
        grep -q '^Options:$' out || fail "$c --help: no Options section"
        grep -Eq '^  -h, --help +show this help$' out || fail "$c --help: no -h, --help line"
        awk 'length($0) > 80 { exit 1 }' out || fail "$c --help: a line over 80 columns"
    done
}
check "every command's help: usage, description, Options with -h/--help" t_help_every_command

t_help_lists_variants() {
    # every variant the library describes (params prints them all), in every help that
    # takes a variant; a variant a command accepts is listed in its help, and one it
    # refuses is not
    "$FL" params --n 1000 --fpr 0.01 | awk 'NR > 2 { print $1 }' >variants
    [ "$(wc -l <variants)" -ge 7 ] || fail "params lists $(cat variants)"
    "$FL" build --help >build.help
    "$FL" params --help >params.help
    "$FL" dedup --help >dedup.help
    "$FL" layered-build --help >layered.help
    "$FL" compress --help >compress.help
    while read -r v; do
        for h in build params dedup; do
            grep -Eq "(^| |,)$v([ ,]|$)" $h.help || fail "$h --help does not name $v"
        done
        # layered-build accepts the variants that never refuse a key
        if "$FL" layered-build --layers 1 --n 10 --fpr 0.1 --variant "$v" -o l.$v </dev/null 2>/dev/null
        then
            grep -Eq "(^| |,)$v([ ,]|$)" layered.help || fail "layered-build takes $v, help omits it"
        else
            ! grep -Eq "(^| |,)$v([ ,]|$)" layered.help || fail "layered-build refuses $v, help lists it"
        fi
        # compress --type accepts the Bloom bit arrays
        if "$FL" compress --n 1000 --bits-per-key 8 --type "$v" -o z.$v </dev/null >/dev/null 2>&1
        then
            grep -Eq "(^| |,)$v([ ,]|$)" compress.help || fail "compress takes $v, help omits it"
        else
            ! grep -Eq -- "--type.*(^| |,)$v([ ,]|$)" compress.help || fail "compress refuses $v, help lists it"
        fi
    done <variants
    for coder in golomb zstd; do
        grep -q "$coder" compress.help || fail "compress --help omits $coder"
    done
    # build-static: every type its help lists builds, and its error names the same ones
    "$FL" build-static --help | awk '/^Types:/ { on = 1; next } /^$/ { on = 0 }
        on && /^  [a-z]/ { print $1 }' >static.types
    [ "$(wc -l <static.types)" -ge 4 ] || fail "build-static types: $(cat static.types)"
    printf 'a\t1\nb\t2\n' >kv.txt
    while read -r t; do
        case $t in bloomier*) vb="--value-bits 4" ;; *) vb= ;; esac
        # shellcheck disable=SC2086
        expect_ok "$FL" build-static --type "$t" $vb --input kv.txt -o s.$t
        [ -s "s.$t" ] || fail "build-static --type $t wrote nothing"
    done <static.types
    expect_error 1 "$FL" build-static --type bogus -o x
    grep -q "($(paste -sd, static.types | sed 's/,/, /g'))" err || fail "$(cat err)"
}
check "help texts list the variants the library describes, as the commands accept them" t_help_lists_variants

t_output_is_dash_o() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o b.flt
    # the old positional output is refused, naming -o
    expect_error 1 "$FL" layered-build pos.lbf --layers 2 --n 10 --fpr 0.1 --input keys.txt
    grep -q -- "-o OUT" err || fail "$(cat err)"
    expect_error 1 "$FL" compress b.flt pos.flz
    grep -q "unexpected argument 'pos.flz'.*-o OUT" err || fail "$(cat err)"
    expect_ok "$FL" compress b.flt -o b.flz
    expect_error 1 "$FL" decompress b.flz pos.flt
    grep -q "unexpected argument 'pos.flt'.*-o OUT" err || fail "$(cat err)"
    [ ! -e pos.lbf ] && [ ! -e pos.flz ] && [ ! -e pos.flt ] || fail "a positional output was written"
    # -o is required where there is an output
    expect_error 1 "$FL" layered-build --layers 2 --n 10 --fpr 0.1 --input keys.txt
    grep -q -- "-o OUT is required" err || fail "$(cat err)"
    expect_error 1 "$FL" compress b.flt
    expect_error 1 "$FL" decompress b.flz
    # long form and standard output
    expect_ok "$FL" decompress b.flz --output back.flt
    same_file b.flt back.flt
    run "$FL" decompress b.flz -o -
    [ "$RC" -eq 0 ] || fail "decompress -o -: $(cat err)"
    same_file b.flt out
    run "$FL" compress b.flt -o -
    [ "$RC" -eq 0 ] || fail "compress -o -: $(cat err)"
    same_file b.flz out
    expect_ok "$FL" layered-build --layers 2 --n 2000 --fpr 0.01 --input keys.txt -o l.lbf
    run "$FL" layered-build --layers 2 --n 2000 --fpr 0.01 --input keys.txt -o -
    same_file l.lbf out
}
check "layered-build, compress and decompress write with -o OUT like every command" t_output_is_dash_o

t_kind_hints() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o f.flt
    expect_ok "$FL" build --type block512 --n 100 --fpr 0.01 --grow --input keys.txt -o g.flt
    expect_ok "$FL" freq --width 100 --depth 2 -o z.cms keys.txt
    expect_ok "$FL" build-static --type fuse --input keys.txt -o u.fuse
    expect_ok "$FL" layered-build --layers 2 --n 2000 --fpr 0.01 --input keys.txt -o l.lbf
    run "$FL" compress f.flt -o c.flz
    [ "$RC" -eq 0 ] || fail "compress: $(cat err)"
    run "$FL" count -o h.hll keys.txt
    [ "$RC" -eq 0 ] || fail "count: $(cat err)"
    # file|its kind's name|the command its hint must name
    local files="f.flt|a filter|query
g.flt|a scalable Bloom filter|query
z.cms|a Count-Min sketch|freq
u.fuse|a binary fuse filter|query
l.lbf|a layered Bloom filter|layered-count
c.flz|a compressed Bloom filter|compressed-query
h.hll|a Redis HyperLogLog string|hll-info"
    # a command (FILE: the file)|the files it reads
    local cmds="query FILE --input keys.txt|f.flt g.flt u.fuse
info FILE|f.flt g.flt u.fuse l.lbf c.flz
layered-count FILE --input keys.txt|l.lbf
compressed-query FILE --input keys.txt|c.flz
compress FILE -o x.out|f.flt
decompress FILE -o x.out|c.flz
delete FILE --input keys.txt -o x.out|f.flt
export-parquet FILE -o x.out|f.flt
freq --from FILE|z.cms
top --from FILE|z.cms
hll-info FILE|h.hll
count --from FILE|h.hll
hll-merge FILE|h.hll"
    local cmd ok f what hint args n=0
    while IFS='|' read -r cmd ok; do
        while IFS='|' read -r f what hint; do
            case " $ok " in *" $f "*) continue ;; esac
            args=${cmd/FILE/$f}
            # shellcheck disable=SC2086
            expect_error 2 "$FL" $args
            grep -q "'$f' is $what, not .* (use 'filterlab $hint'" err ||
                fail "$args: $(cat err)"
            ! grep -q "another kind" err || fail "$args: $(cat err)"
            n=$((n + 1))
        done <<<"$files"
        [ ! -e x.out ] || fail "$cmd: x.out written"
    done <<<"$cmds"
    [ "$n" -ge 60 ] || fail "only $n pairs checked"
}
check "a file of another kind is named, with the command that reads it, by every command" t_kind_hints

t_global_options_hint() {
    expect_ok "$FL" build --type block512 --n 2000 --fpr 0.01 --input keys.txt -o f.flt
    expect_error 1 "$FL" query f.flt --kernel scalar --input keys.txt
    grep -q -- "--kernel is a global option.*'filterlab --kernel scalar query \.\.\.'" err ||
        fail "$(cat err)"
    expect_error 1 "$FL" query f.flt --kernel=scalar
    grep -q "'filterlab --kernel scalar query \.\.\.'" err || fail "$(cat err)"
    expect_error 1 "$FL" query f.flt --max-bytes 1M
    grep -q "'filterlab --max-bytes 1M query \.\.\.'" err || fail "$(cat err)"
    expect_error 1 "$FL" query f.flt --kernel
    grep -q "'filterlab --kernel NAME query \.\.\.'" err || fail "$(cat err)"
    expect_error 1 "$FL" info f.flt --version
    grep -q -- "--version is a global option" err || fail "$(cat err)"
    # where it belongs, it works
    expect_ok "$FL" --kernel scalar query f.flt --input keys.txt
    # every command's parser says it, for both options (the Parquet commands have a
    # --max-bytes of their own)
    for c in $(commands); do
        expect_error 1 "$FL" "$c" --kernel scalar
        grep -q "^filterlab: $c: --kernel is a global option" err || fail "$c: $(cat err)"
        case $c in import-parquet|export-parquet) continue ;; esac
        expect_error 1 "$FL" "$c" --max-bytes 1M
        grep -q "^filterlab: $c: --max-bytes is a global option" err || fail "$c: $(cat err)"
    done
}
check "a global option after the command: the error says where it goes" t_global_options_hint

t_compress_planned() {
    awk 'BEGIN { for (i = 1; i <= 20000; i++) print "planned-" i }' >pk.txt
    expect_ok "$FL" compress --n 20000 --bits-per-key 8 --input pk.txt -o p.flz
    local fpr
    fpr=$(sed -n 's/.*predicted FPR \([0-9.e-]*\) .*/\1/p' out)
    [ -n "$fpr" ] || fail "no plan line: $(cat out)"
    # the plain filter of the same FPR is larger than the planned, compressed one
    expect_ok "$FL" build --type block512 --n 20000 --fpr "$fpr" --input pk.txt -o plain.flt
    [ "$(wc -c <p.flz)" -lt "$(wc -c <plain.flt)" ] ||
        fail "planned $(wc -c <p.flz) bytes, plain $(wc -c <plain.flt) at FPR $fpr"
    # and compressing that plain filter does not help (it grows by the index)
    run "$FL" compress plain.flt -o plain.flz
    [ "$(wc -c <plain.flz)" -ge "$(wc -c <plain.flt)" ] || fail "a plain filter shrank"
    # every inserted key is present
    expect_ok "$FL" compressed-query p.flz --input pk.txt --count
    [ "$(cat out)" = 20000 ] || fail "present: $(cat out) of 20000"
    expect_ok "$FL" compressed-query p.flz --input pk.txt
    same_file out pk.txt
    expect_ok "$FL" decompress p.flz -o p.flt
    expect_ok "$FL" query p.flt --input pk.txt --count
    [ "$(cat out)" = 20000 ] || fail "decompressed: $(cat out) of 20000"
    # the --fpr plan, another variant, zstd, a seed: smaller than the plain filter too
    expect_ok "$FL" compress --n 20000 --fpr 0.01 --input pk.txt -o q.flz
    expect_ok "$FL" build --type block512 --n 20000 --fpr 0.01 --input pk.txt -o q.flt
    [ "$(wc -c <q.flz)" -lt "$(wc -c <q.flt)" ] || fail "--fpr plan not smaller"
    expect_ok "$FL" compressed-query q.flz --input pk.txt --count
    [ "$(cat out)" = 20000 ] || fail "--fpr plan present: $(cat out)"
    # another variant, the other coder, a seed: every key still present
    expect_ok "$FL" compress --n 20000 --bits-per-key 10 --type classic --coder zstd --seed 7 \
        --input pk.txt -o r.flz
    expect_ok "$FL" decompress r.flz -o r.flt
    expect_ok "$FL" query r.flt --input pk.txt --count
    [ "$(cat out)" = 20000 ] || fail "classic/zstd plan present: $(cat out)"
    # bad requests
    expect_error 1 "$FL" compress --n 100 --input pk.txt -o x.flz
    expect_error 1 "$FL" compress --n 100 --bits-per-key 8 --fpr 0.01 --input pk.txt -o x.flz
    expect_error 1 "$FL" compress --bits-per-key 8 --input pk.txt -o x.flz
    expect_error 1 "$FL" compress plain.flt --n 100 --bits-per-key 8 -o x.flz
    expect_error 1 "$FL" compress --n 100 --bits-per-key 8 --type cuckoo -o x.flz
    expect_error 1 "$FL" compress --n 100 --bits-per-key 8 --type counting -o x.flz
    expect_error 1 "$FL" compress --n 100 --bits-per-key -3 -o x.flz
    expect_error 1 "$FL" compress --n 100 --bits-per-key 8 --max-bits-per-key 1 -o x.flz
    [ ! -e x.flz ] || fail "x.flz written"
}
check "compress --n --bits-per-key/--fpr: Mitzenmacher's plan, smaller than the plain filter" t_compress_planned

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
