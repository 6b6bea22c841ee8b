#!/bin/sh
# Regenerates the committed sample result files used by test_scripts.py. They are written by
# flbench itself on a tiny configuration, never by hand:  bench/tests/make_samples.sh BUILD_DIR
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
flbench="$build/bench/flbench"
[ -x "$flbench" ] || { echo "no $flbench (give the build directory)" >&2; exit 1; }
for s in a b; do
    "$flbench" --filter split256,cuckoo --kernel scalar,avx2 --sizes 16K,1M --hit-rate 0.5 \
        --reps 3 --warmup 1 --lookups 65536 --json "$here/sample_$s.json"
done
echo "wrote $here/sample_a.json $here/sample_b.json"
