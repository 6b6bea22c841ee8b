#!/usr/bin/env bash
# The `filterlab` command never surprises a user: sizes refused before anything is
# allocated or written, warnings for empty input, progress only on a terminal, an interrupted
# save that leaves the old file, --json describe output, and hints for Redis strings with a
# trailing newline.
#
#   tests/cli/test_cli_safety.sh FILTERLAB_BINARY
#
# Prints `ok - NAME` or `not ok - NAME` per check (details of failures go to stderr), then
# `N passed, M failed, K skipped`; exits non-zero if any check failed. Helpers: lib.sh.
set -u

FL=${1:?usage: test_cli_safety.sh FILTERLAB_BINARY}
case $FL in /*) ;; *) FL=$PWD/$FL ;; esac
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -x "$FL" ] || { echo "not an executable: $FL" >&2; exit 1; }
unset FILTERLAB_KERNEL FILTERLAB_PROGRESS
PY=/usr/bin/python3

T=$(mktemp -d "${TMPDIR:-/tmp}/filterlab-safety.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

. "$HERE/lib.sh"

# expect_warning CMD...: status 0 and exactly one stderr line, a "filterlab: warning: ".
expect_warning() {
    run "$@"
    [ "$RC" -eq 0 ] || fail "status $RC, expected 0: $* :: $(cat "$T/err")"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "expected one stderr line: $* :: $(cat "$T/err")"
    grep -q '^filterlab: warning: ' "$T/err" || fail "not a warning: $(cat "$T/err")"
}

# The machine's physical memory in bytes, as the command computes it.
phys_bytes() { echo $(( $(getconf _PHYS_PAGES) * $(getconf PAGESIZE) )); }

# ---- fixtures -------------------------------------------------------------------------
awk 'BEGIN { for (i = 1; i <= 2000; i++) print "key-" i }' >keys.txt
: >empty.txt

# ---- sizes refused before anything is allocated or written -------------------------------
t_size_typo_refused() {
    echo "the old filter" >out.flt
    cp out.flt out.orig
    # --n 1e10 for 1e6: 11.2 GiB of classic filter. Refused at once (a build would allocate
    # and write 12 GB: far more than the 20 s allowed), naming the size and the limit (the
    # default --max-bytes, or physical memory on a machine with less); the old output
    # stays, and no temporary is left.
    expect_error 1 timeout 20 "$FL" build --n 1e10 --fpr 0.01 --type classic -o out.flt <keys.txt
    grep -q '11.2 GiB' err || fail "no size: $(cat err)"
    grep -Eq -- "more than (--max-bytes \(4.00 GiB\)|this machine's physical memory)" err ||
        fail "no limit: $(cat err)"
    cmp -s out.flt out.orig || fail "the old output changed"
    # The way to allow it: 2 MiB of filter under --max-bytes 1M.
    expect_error 1 "$FL" --max-bytes 1M build --bits 16777216 --type classic -o out.flt <keys.txt
    grep -q -- "more than --max-bytes (1.00 MiB)" err || fail "no limit: $(cat err)"
    grep -q -- "'filterlab --max-bytes 2M build ...'" err || fail "no way to allow it: $(cat err)"
    cmp -s out.flt out.orig || fail "the old output changed"
    ! ls out.flt.tmp.* 2>/dev/null || fail "a temporary file was left"
    # Every command that sizes a structure from its options does the same.
    expect_error 1 timeout 20 "$FL" build --grow --n 1e10 --fpr 0.01 --type classic -o out.flt <keys.txt
    expect_error 1 timeout 20 "$FL" build --bits 4e10 --type classic -o out.flt <keys.txt
    expect_error 1 timeout 20 "$FL" build --units 1e9 --k 7 --type block512 -o out.flt <keys.txt
    cmp -s out.flt out.orig || fail "the old output changed"
    expect_error 1 timeout 20 "$FL" dedup --n 1e10 --fpr 0.01 <keys.txt
    expect_error 1 timeout 20 "$FL" dedup --n 1e10 --fpr 0.01 --no-grow <keys.txt
    expect_error 1 timeout 20 "$FL" layered-build -o out.flt --layers 8 --n 1e9 --fpr 0.01 <keys.txt
    cmp -s out.flt out.orig || fail "the old output changed"
    expect_error 1 timeout 20 "$FL" --max-bytes 1M freq --width 100000 --depth 4 keys.txt
    grep -q 'Count-Min sketch of 1.53 MiB' err || fail "$(cat err)"
    expect_error 1 timeout 20 "$FL" --max-bytes 1M top --width 100000 --depth 4 keys.txt
    # build-static learns its size from the key count.
    expect_error 1 "$FL" --max-bytes 1K build-static --type fuse -o out.flt <keys.txt
    grep -q "'filterlab --max-bytes 1M build-static ...'" err || fail "$(cat err)"
    cmp -s out.flt out.orig || fail "the old output changed"
}
check "size: a typo in a size is refused at once, the old output left" t_size_typo_refused

t_size_same_limit_as_loads() {
    # 1M bits = 128 KiB: above a 64K limit, within 128K; info loads under the same limit.
    expect_error 1 "$FL" --max-bytes 64K build --bits 1048576 --type block512 -o f.flt <keys.txt
    [ ! -e f.flt ] || fail "a refused build wrote its output"
    expect_ok "$FL" --max-bytes 128K build --bits 1048576 --type block512 -o f.flt <keys.txt
    expect_ok "$FL" --max-bytes 128K info f.flt
    expect_error 2 "$FL" --max-bytes 64K info f.flt
    expect_ok "$FL" --max-bytes 32K freq --width 2000 --depth 4 keys.txt
    expect_ok "$FL" --max-bytes 8K build-static --type fuse -o s.fuse <keys.txt
    # A growing chain stops where its sub-filters together would pass the limit.
    expect_error 2 "$FL" --max-bytes 4K build --grow --n 100 --fpr 0.01 --type block512 \
        -o g.flt <keys.txt
    grep -q 'cannot grow after' err || fail "$(cat err)"
    [ ! -e g.flt ] || fail "a failed build wrote its output"
    expect_ok "$FL" --max-bytes 1M build --grow --n 100 --fpr 0.01 --type block512 -o g.flt <keys.txt
    expect_ok "$FL" --max-bytes 1M info g.flt
}
check "size: --max-bytes caps what is created as it caps what is loaded" t_size_same_limit_as_loads

t_size_physical_memory() {
    # --max-bytes 0 lifts --max-bytes, not physical memory: 4e9 blocks of 64 bytes (238 GiB)
    # are refused by the latter (skipped on a machine with that much memory).
    local phys
    phys=$(phys_bytes)
    if [ "$phys" -ge 256000000000 ]; then echo "SKIP: $phys bytes of memory"; return 77; fi
    expect_error 1 timeout 20 "$FL" --max-bytes 0 build --units 4e9 --k 8 --type block512 \
        -o p.flt <keys.txt
    grep -q "more than this machine's physical memory" err || fail "$(cat err)"
    ! grep -q -- '--max-bytes' err || fail "--max-bytes cannot allow this: $(cat err)"
    [ ! -e p.flt ] || fail "a refused build wrote its output"
    expect_error 1 timeout 20 "$FL" --max-bytes 0 dedup --n 1e11 --fpr 0.001 --no-grow \
        --type block512 <keys.txt
    grep -q "physical memory" err || fail "$(cat err)"
}
check "size: physical memory caps creation even with --max-bytes 0" t_size_physical_memory

# ---- empty input -----------------------------------------------------------------------
t_empty_input_warns() {
    expect_warning "$FL" build --n 10 --fpr 0.01 --type block512 -o e.flt <empty.txt
    grep -qx "filterlab: warning: no keys in standard input; the filter is empty" err ||
        fail "$(cat err)"
    [ -s e.flt ] || fail "the empty filter was not written"
    expect_warning "$FL" build --n 10 --fpr 0.01 --type block512 --input empty.txt -o e.flt
    grep -qx "filterlab: warning: no keys in 'empty.txt'; the filter is empty" err ||
        fail "$(cat err)"
    expect_warning "$FL" build --grow --n 10 --fpr 0.01 --type block512 -o e.flt <empty.txt
    # build-static builds the empty structure (every key absent) and says so.
    expect_warning "$FL" build-static --type fuse -o e.fuse <empty.txt
    grep -q "the filter is empty" err || fail "$(cat err)"
    expect_ok "$FL" query e.fuse <keys.txt
    [ ! -s out ] || fail "an empty fuse filter reported keys"
    expect_warning "$FL" build-static --type bloomier --value-bits 4 -o e.blm <empty.txt
    grep -q "the map is empty" err || fail "$(cat err)"
    expect_warning "$FL" layered-build -o e.lbf --layers 2 --n 10 --fpr 0.01 --input empty.txt
    grep -q "no keys in 'empty.txt'" err || fail "$(cat err)"
    expect_warning "$FL" count empty.txt
    grep -qx "filterlab: warning: no keys in 'empty.txt'; the sketch is empty" err ||
        fail "$(cat err)"
    [ "$(cat out)" = 0 ] || fail "count printed $(cat out)"
    expect_warning "$FL" count empty.txt - <empty.txt
    grep -q "no keys in any of the 2 inputs" err || fail "$(cat err)"
    expect_warning "$FL" freq <empty.txt
    expect_warning "$FL" top <empty.txt
    # Input that has keys, and a sketch started --from a saved one, are not empty.
    expect_ok "$FL" build --n 10000 --fpr 0.01 --type block512 -o k.flt <keys.txt
    expect_ok "$FL" count -o k.hll keys.txt
    expect_ok "$FL" count --from k.hll empty.txt
    expect_ok "$FL" freq -o k.cms keys.txt
    expect_ok "$FL" freq --from k.cms empty.txt
}
check "empty input: one warning, exit 0, the empty structure written" t_empty_input_warns

# ---- progress on a terminal, nothing elsewhere --------------------------------------------
# slow_input FIFO: 600 lines into a new FIFO, 300 of them 0.6 s after the others, so any
# reader runs longer than the 0.25 s before a first progress line, past the 256 lines
# between its clock reads.
slow_input() {
    rm -f "$1"
    mkfifo "$1"
    { seq 1 300; sleep 0.6; seq 301 600; } >"$1" &
}

t_progress_silent_without_tty() {
    slow_input in.fifo
    expect_ok "$FL" build --n 1000 --fpr 0.01 --type block512 --input in.fifo -o p.flt
    slow_input in.fifo
    expect_ok "$FL" count in.fifo
    slow_input in.fifo
    expect_ok "$FL" dedup --n 1000 --fpr 0.01 --input in.fifo
    [ "$(wc -l <out)" -eq 600 ] || fail "dedup printed $(wc -l <out) lines"
}
check "progress: nothing at all when stderr is not a terminal" t_progress_silent_without_tty

# on_tty FILE CMD: CMD (one shell string) with a pseudo-terminal for stdin, stdout and
# stderr (util-linux script), all it printed into FILE.
on_tty() {
    local file=$1
    shift
    script -qec "$1" /dev/null >"$file"
}

t_progress_on_tty() {
    if ! command -v script >/dev/null || ! script -qec true /dev/null >/dev/null 2>&1; then
        echo "SKIP: no script(1) or no pseudo-terminal"
        return 77
    fi
    slow_input in.fifo
    on_tty tty.out "'$FL' build --n 1000 --fpr 0.01 --type block512 --input in.fifo -o t.flt"
    # "\rfilterlab: build: N lines, ..., R lines/s\e[K", then "\r\e[K" erases it at the end.
    grep -aq "filterlab: build: [0-9]* lines, .* lines/s" tty.out || fail "no progress: $(od -c tty.out | head)"
    [ "$(tail -c 4 tty.out | od -An -c | tr -d ' ')" = '\r033[K' ] ||
        fail "the progress line was not erased at the end: $(od -c tty.out | tail -3)"
    expect_ok "$FL" info t.flt
    grep -qx "keys: *600" out || fail "every line must be read once: $(cat out)"
    slow_input in.fifo
    on_tty tty.out "'$FL' count in.fifo"
    grep -aq "filterlab: count: [0-9]* lines" tty.out || fail "count: $(od -c tty.out | head)"
    # Turned off: --quiet, FILTERLAB_PROGRESS=0.
    slow_input in.fifo
    on_tty tty.out "'$FL' --quiet build --n 1000 --fpr 0.01 --type block512 --input in.fifo -o t.flt"
    [ ! -s tty.out ] || fail "--quiet: $(od -c tty.out | head)"
    slow_input in.fifo
    on_tty tty.out "FILTERLAB_PROGRESS=0 '$FL' build --n 1000 --fpr 0.01 --type block512 --input in.fifo -o t.flt"
    [ ! -s tty.out ] || fail "FILTERLAB_PROGRESS=0: $(od -c tty.out | head)"
}
check "progress: a line redrawn on a terminal, erased at the end, --quiet" t_progress_on_tty

# ---- an interrupted save leaves the old file ----------------------------------------------
# interrupted_save SIG CMD...: CMD run with the test hook that raises SIG as its save starts
# (a real kill cannot be timed to land there). Expects exit 128 + SIG, one line naming the
# output ($OUT), $OUT as it was and no temporary beside it.
interrupted_save() {
    local sig=$1
    shift
    echo "the old content" >"$OUT"
    cp "$OUT" old.copy
    RC=0
    FILTERLAB_TEST_SIGNAL_IN_SAVE=$sig "$@" >out 2>err || RC=$?
    [ "$RC" -eq $((128 + sig)) ] || fail "status $RC, expected $((128 + sig)): $* :: $(cat err)"
    [ "$(wc -l <err)" -eq 1 ] || fail "expected one line: $(cat err)"
    cmp -s "$OUT" old.copy || fail "$OUT changed: $*"
    ! ls "$OUT".tmp.* 2>/dev/null || fail "a temporary was left: $*"
}

# Whether this shell inherited SIGHUP ignored (bit 0 of /proc's SigIgn mask is signal 1).
sighup_ignored() {
    local mask
    mask=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status 2>/dev/null) || return 1
    [ -n "$mask" ] && [ $((16#$mask & 1)) -eq 1 ]
}

t_interrupt_during_save() {
    OUT=o.bin
    interrupted_save 2 "$FL" build --n 3000 --fpr 0.01 --type block512 -o o.bin <keys.txt
    grep -qx "filterlab: interrupted; 'o.bin' left unchanged" err || fail "$(cat err)"
    interrupted_save 2 "$FL" build --grow --n 100 --fpr 0.01 --type block512 -o o.bin <keys.txt
    interrupted_save 15 "$FL" count -o o.bin keys.txt
    grep -qx "filterlab: terminated; 'o.bin' left unchanged" err || fail "$(cat err)"
    [ ! -s out ] || fail "count printed after the abandoned save: $(cat out)"
    interrupted_save 2 "$FL" freq -o o.bin keys.txt
    interrupted_save 2 "$FL" build-static --type fuse -o o.bin <keys.txt
    interrupted_save 2 "$FL" layered-build -o o.bin --layers 2 --n 3000 --fpr 0.01 <keys.txt
    # SIGHUP only where it is not ignored: a shell started under nohup (or a CI runner that
    # ignores it) passes SIG_IGN on to every child, and filterlab rightly keeps it ignored.
    if ! sighup_ignored; then
        interrupted_save 1 "$FL" layered-build -o o.bin --layers 2 --n 3000 --fpr 0.01 <keys.txt
        grep -q "hung up" err || fail "$(cat err)"
    fi
    expect_ok "$FL" build --n 3000 --fpr 0.01 --type block512 -o b.flt <keys.txt
    interrupted_save 2 "$FL" compress b.flt -o o.bin
    expect_ok "$FL" build --n 3000 --fpr 0.01 --type counting -o c.flt <keys.txt
    interrupted_save 2 "$FL" delete c.flt -o o.bin --input keys.txt
    # Without a signal nothing changes: the save happens, silently.
    expect_ok "$FL" build --n 3000 --fpr 0.01 --type block512 -o o.bin <keys.txt
    expect_ok "$FL" info o.bin
}
check "interrupt: a signal during a save abandons it, old file kept, exit 128+N" t_interrupt_during_save

t_interrupt_real_signal() {
    # A real signal in the middle of writing a 250 MB filter (SIGTERM: a non-interactive
    # shell starts background jobs with SIGINT ignored, which the command respects). The
    # check can only be made if the temporary is seen before the save ends.
    echo "the old content" >big.flt
    cp big.flt old.copy
    "$FL" build --bits 2000000000 --type block512 -o big.flt </dev/null 2>err &
    local pid=$! i seen=0 rc=0
    for i in $(seq 1 1000); do
        if ls big.flt.tmp.* >/dev/null 2>&1; then seen=1; break; fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
    done
    [ "$seen" -eq 1 ] && kill -TERM "$pid"
    wait "$pid" || rc=$?
    if [ "$seen" -eq 0 ]; then
        rm -f big.flt
        echo "SKIP: the save ended before its temporary was seen"
        return 77
    fi
    if [ "$rc" -eq 0 ]; then
        # The signal came after the rename: the new file is whole.
        grep -q "terminated after 'big.flt' was written" err || true
        echo "SKIP: the save ended before the signal"
        rm -f big.flt
        return 77
    fi
    [ "$rc" -eq 143 ] || fail "status $rc: $(cat err)"
    grep -qx "filterlab: terminated; 'big.flt' left unchanged" err || fail "$(cat err)"
    cmp -s big.flt old.copy || fail "big.flt changed"
    ! ls big.flt.tmp.* 2>/dev/null || fail "a temporary was left"
}
check "interrupt: a real SIGTERM in the middle of a large save" t_interrupt_real_signal

# ---- --json: one object, the text's facts ------------------------------------------------
# jget PATH < JSON: the value at a dotted path (list indexes as numbers) after parsing the
# whole input as one JSON document: strings as they are, anything else as JSON.
jget() {
    "$PY" -c '
import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d if isinstance(d, str) else json.dumps(d))' "$1"
}
# text FIELD: the value after "FIELD:" in the text output ($T/out), spaces trimmed.
text() { sed -n "s/^$1: *//p" out | head -1; }
# same_num A B: the same number at three significant digits (the text's precision).
same_num() {
    "$PY" -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if "%.3g" % a == "%.3g" % b else 1)' "$1" "$2" ||
        fail "$1 and $2 differ"
}
# documented JSON HELP: every key of the JSON object in file JSON (nested ones too) is
# named in the --help text in file HELP.
documented() {
    "$PY" -c '
import json, re, sys
words = set(re.findall(r"[a-z0-9_]+", open(sys.argv[2]).read()))
def keys(d):
    if isinstance(d, dict):
        for k, v in d.items():
            yield k
            yield from keys(v)
    elif isinstance(d, list):
        for v in d:
            yield from keys(v)
missing = sorted(set(keys(json.load(open(sys.argv[1])))) - words)
sys.exit("undocumented keys: %s" % missing if missing else 0)' "$1" "$2"
}
# is_int PATH < JSON: the value is a JSON integer (not a string, not a float).
is_int() { [ "$("$PY" -c 'import json,sys; d=json.load(sys.stdin); print(type(d[sys.argv[1]]).__name__)' "$1")" = int ] ||
    fail "$1 is not an integer"; }

t_json_info_filters() {
    for v in block512 cuckoo counting; do
        expect_ok "$FL" build --n 3000 --fpr 0.01 --type $v -o $v.flt <keys.txt
        expect_ok "$FL" info $v.flt
        cp out $v.txt
        expect_ok "$FL" info --json $v.flt
        cp out $v.json
        [ "$(jget kind <$v.json)" = filter ] || fail "kind"
        [ "$(jget variant <$v.json)" = $v ] || fail "variant"
        cp $v.txt out
        [ "$(jget keys <$v.json)" = "$(text keys)" ] || fail "$v keys"
        [ "$(jget bytes <$v.json)" = "$(text bytes | cut -d' ' -f1)" ] || fail "$v bytes"
        [ "$(jget geometry.description <$v.json)" = "$(text geometry)" ] || fail "$v geometry"
        same_num "$(jget predicted_fpr <$v.json)" "$(text 'predicted FPR' | cut -d' ' -f1)"
        is_int keys <$v.json
        is_int bytes <$v.json
    done
    [ "$(jget fill_unit <block512.json)" = bits ] || fail "block512 fill_unit"
    [ "$(jget fill_unit <cuckoo.json)" = slots ] || fail "cuckoo fill_unit"
    [ "$(jget fill_unit <counting.json)" = counters ] || fail "counting fill_unit"
    [ "$(jget stash_used <cuckoo.json)" = 0 ] || fail "cuckoo stash_used"
    [ "$(jget stash_used <block512.json)" = null ] || fail "block512 stash_used"
    "$FL" info --help >info.help
    for v in block512 cuckoo counting; do documented $v.json info.help; done
    # A scalable chain, the static kinds, layered and compressed filters.
    expect_ok "$FL" build --grow --n 100 --fpr 0.01 --type block512 -o chain.flt <keys.txt
    expect_ok "$FL" info chain.flt
    [ "$("$FL" info --json chain.flt | jget sub_filters | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)))')" = "$(text sub-filters)" ] ||
        fail "sub_filters"
    [ "$("$FL" info --json chain.flt | jget keys)" = "$(text keys)" ] || fail "chain keys"
    [ "$("$FL" info --json chain.flt | jget kind)" = scalable_bloom ] || fail "chain kind"
    "$FL" info --json chain.flt >chain.json
    documented chain.json info.help
    expect_ok "$FL" build-static --type fuse -o s.fuse <keys.txt
    expect_ok "$FL" info s.fuse
    [ "$("$FL" info --json s.fuse | jget keys)" = "$(text keys | cut -d' ' -f1)" ] || fail "fuse keys"
    [ "$("$FL" info --json s.fuse | jget kind)" = binary_fuse ] || fail "fuse kind"
    "$FL" info --json s.fuse >fuse.json
    documented fuse.json info.help
    expect_ok "$FL" layered-build -o l.lbf --layers 3 --n 3000 --fpr 0.01 --input keys.txt
    expect_ok "$FL" info l.lbf
    cp out l.txt
    expect_ok "$FL" info --json l.lbf
    [ "$(jget layer_keys.0 <out)" = "$(awk '$1 == "layer" && $2 == 0 { print $3 }' l.txt)" ] ||
        fail "layer_keys: $(cat out)"
    [ "$(jget layers <out)" = 3 ] || fail "layers"
    documented out info.help
    expect_ok "$FL" compress block512.flt -o c.cbf
    expect_ok "$FL" info --json c.cbf
    [ "$(jget kind <out)" = compressed_bloom ] || fail "compressed kind"
    [ "$(jget keys <out)" = 2000 ] || fail "compressed keys"
    documented out info.help
}
check "json: info --json of every kind parses and matches the text" t_json_info_filters

t_json_other_commands() {
    expect_ok "$FL" count -o k.hll keys.txt
    expect_ok "$FL" hll-info k.hll
    cp out hll.txt
    expect_ok "$FL" hll-info --json k.hll
    cp out hll.json
    cp hll.txt out
    [ "$(jget estimate <hll.json)" = "$(text estimate)" ] || fail "estimate"
    [ "$(jget encoding <hll.json)" = "$(text encoding)" ] || fail "encoding"
    [ "$(jget bytes <hll.json)" = "$(text bytes)" ] || fail "bytes"
    "$FL" hll-info --help >help.txt
    documented hll.json help.txt
    expect_ok "$FL" freq --width 1000 --depth 4 -o k.cms keys.txt
    expect_ok "$FL" freq --from k.cms --info
    cp out cms.txt
    expect_ok "$FL" freq --from k.cms --info --json
    [ "$(jget width <out)" = 1000 ] && [ "$(jget depth <out)" = 4 ] || fail "shape: $(cat out)"
    [ "$(jget total <out)" = "$(sed -n 's/^total: *//p' cms.txt)" ] || fail "total"
    cp out cms.json
    "$FL" freq --help >help.txt
    documented cms.json help.txt
    expect_error 1 "$FL" freq --from k.cms --json --query keys.txt
    expect_ok "$FL" kernels
    cp out kernels.txt
    expect_ok "$FL" kernels --json
    [ "$(jget selected <out)" = "$(sed -n 's/^selected: \([^ ]*\).*/\1/p' kernels.txt)" ] ||
        fail "selected"
    [ "$(jget kernels.0.name <out)" = "$(sed -n '2s/ .*//p' kernels.txt)" ] || fail "first kernel"
    cp out kernels.json
    "$FL" kernels --help >help.txt
    documented kernels.json help.txt
    expect_ok "$FL" host
    cp out host.txt
    expect_ok "$FL" host --json
    [ "$(jget host_id <out)" = "$(sed -n 's/^host id: *//p' host.txt)" ] || fail "host_id"
    cp out host.json
    "$FL" host --help >help.txt
    documented host.json help.txt
    expect_ok "$FL" params --n 1e6 --fpr 0.001 --type block512
    cp out params.txt
    expect_ok "$FL" params --n 1e6 --fpr 0.001 --type block512 --json
    [ "$(jget variants.0.bytes <out)" = "$(awk '$1 == "block512" { print $(NF-4) }' params.txt)" ] ||
        fail "params bytes: $(cat out) $(cat params.txt)"
    [ "$(jget n <out)" = 1000000 ] || fail "n"
    cp out params.json
    "$FL" params --help >help.txt
    documented params.json help.txt
    # A variant that cannot reach the FPR is listed with its reason.
    expect_ok "$FL" params --n 1e6 --fpr 1e-9 --json
    [ "$(jget variants.4.variant <out)" = cuckoo ] || fail "order"
    jget variants.4.error <out | grep -q . || fail "no error for cuckoo"
}
check "json: hll-info, freq --info, kernels, host, params --json" t_json_other_commands

t_json_string_escaping() {
    # A file name with a quote, a backslash, a tab, a newline and a byte that is not UTF-8:
    # the output still parses, and the name reads back (the stray byte as U+FFFD).
    local name
    name=$(printf 'we"ird\\na\tme\n\377é.flt')
    cp block512.flt "$name" 2>/dev/null || expect_ok "$FL" build --n 10 --fpr 0.01 --type block512 -o "$name" <keys.txt
    run "$FL" info --json "$name"
    [ "$RC" -eq 0 ] || fail "status $RC: $(cat err)"
    "$PY" -c '
import json, sys
d = json.load(open("out", encoding="utf-8"))
want = "we\"ird\\na\tme\n\ufffd\u00e9.flt"
sys.exit(0 if d["file"] == want else "file is %r" % d["file"])'
}
check "json: strings escaped right, invalid UTF-8 replaced" t_json_string_escaping

# ---- Redis strings with redis-cli's trailing newline --------------------------------------
t_hll_trailing_newline() {
    awk 'BEGIN { for (i = 1; i <= 50000; i++) print "d-" i }' >many.txt
    expect_ok "$FL" count -o sparse.hll keys.txt
    expect_ok "$FL" count -o dense.hll many.txt
    for h in sparse dense; do
        # What `redis-cli --raw GET key > file` writes: the string, then '\n'.
        { cat $h.hll; echo; } >$h.nl
        for cmd in "hll-info $h.nl" "count --from $h.nl" "hll-merge $h.hll $h.nl"; do
            # shellcheck disable=SC2086
            expect_error 2 "$FL" $cmd
            grep -q "ends with a newline after the sketch" err || fail "$cmd: $(cat err)"
            grep -q "head -c -1 '$h.nl'" err || fail "$cmd: $(cat err)"
        done
        # The hint is right: the file without its last byte is the sketch.
        head -c -1 $h.nl >$h.fixed
        expect_ok "$FL" hll-info $h.fixed
        cmp -s $h.fixed $h.hll || fail "head -c -1 did not give the sketch back"
    done
    # Other damage gets no such hint.
    { cat sparse.hll; printf 'x'; } >x.hll
    expect_error 2 "$FL" hll-info x.hll
    ! grep -q newline err || fail "$(cat err)"
    printf 'hello\n' >text.hll
    expect_error 2 "$FL" hll-info text.hll
    ! grep -q newline err || fail "$(cat err)"
}
check "hll: a sketch with redis-cli's trailing newline is refused with the fix" t_hll_trailing_newline

echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" -eq 0 ]
