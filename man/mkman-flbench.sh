#!/bin/sh
# Writes flbench.1 with help2man from whatever `flbench --help` prints (man/meson.build runs
# it). flbench is bench/'s to change; this only adapts its help to help2man's reading:
#   - "usage:" becomes "Usage:" (help2man's SYNOPSIS needs the capital);
#   - without an "Options:" heading, one goes before the first group of options, and the
#     group titles ("What is measured", a line followed by an indented option) get a colon,
#     so that they become subsections of OPTIONS.
# A help that already has both is passed through as it is. Its exit status is tolerated
# (help2man only needs the text; --no-discard-stderr keeps a help printed on stderr), and
# the version comes from meson (--version-string): flbench has no --version.
#
#   mkman-flbench.sh HELP2MAN FLBENCH OUTPUT VERSION
set -eu
help2man=$1 fb=$2 out=$3 version=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flbench-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset FILTERLAB_KERNEL
{ "$fb" --help 2>&1 || true; } >"$tmp/help.txt"
grep -q . "$tmp/help.txt" || { echo "mkman-flbench.sh: $fb --help printed nothing" >&2; exit 1; }
awk '
    { line[NR] = $0 }
    END {
        has_options = 0
        for (i = 1; i <= NR; i++) if (line[i] ~ /^Options:/) has_options = 1
        for (i = 1; i <= NR; i++) {
            s = line[i]
            if (i == 1) sub(/^usage:/, "Usage:", s)
            title = s ~ /^[A-Z][^:]*[^:.]$/ && line[i - 1] == "" && line[i + 1] ~ /^ +-/
            if (title && !has_options) { print "Options:"; has_options = 1 }
            if (title) s = s ":"
            print s
        }
    }' "$tmp/help.txt" >"$tmp/help2man.txt"
printf '#!/bin/sh\ncat %s\n' "'$tmp/help2man.txt'" >"$tmp/flbench"
chmod +x "$tmp/flbench"
printf '[SEE ALSO]\n.BR filterlab (1)\n' >"$tmp/see-also.h2m"
"$help2man" --no-info --no-discard-stderr --include="$tmp/see-also.h2m" \
    --name="benchmark harness of the filterlab filters and sketches" \
    --version-string="$version" --output="$out" "$tmp/flbench"
