#!/bin/sh
# Writes one man page from a --help text with help2man (man/meson.build runs it).
#
#   mkman.sh HELP2MAN FILTERLAB OUTPUT VERSION            filterlab.1
#   mkman.sh HELP2MAN FILTERLAB OUTPUT VERSION COMMAND    filterlab-COMMAND.1
#
# help2man runs PROGRAM --help (and --version, unless given --version-string), so a
# subcommand's page runs a wrapper named filterlab-COMMAND that calls `filterlab COMMAND`.
# NAME's one-line description is the command's summary in `filterlab --help`.
set -eu
help2man=$1 fl=$2 out=$3 version=$4 cmd=${5:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/filterlab-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# A kernel chosen through the environment must not change (or break) a help text.
unset FILTERLAB_KERNEL

if [ -z "$cmd" ]; then
    # filterlab(1) points to every command's page.
    {
        printf '[SEE ALSO]\n'
        "$fl" --help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 }
            on && /^  [a-z]/ { printf "%s.BR filterlab\\-%s (1)", sep, $1; sep = ",\n" }
            END { print "" }'
    } >"$tmp/see-also.h2m"
    exec "$help2man" --no-info --include="$tmp/see-also.h2m" \
        --name="Bloom, cuckoo and other probabilistic filters over lines of text" \
        --output="$out" "$fl"
fi

summary=$("$fl" --help | awk -v c="$cmd" '/^Commands:/ { on = 1; next } /^$/ { on = 0 }
    on && /^  [a-z]/ && $1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
[ -n "$summary" ] || { echo "mkman.sh: 'filterlab --help' does not list $cmd" >&2; exit 1; }
wrapper=$tmp/filterlab-$cmd
# The paths are quoted for the shell that runs the wrapper.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
printf '#!/bin/sh\nexec %s %s "$@"\n' "$(q "$fl")" "$(q "$cmd")" >"$wrapper"
chmod +x "$wrapper"
printf '[SEE ALSO]\n.BR filterlab (1)\n' >"$tmp/see-also.h2m"
exec "$help2man" --no-info --include="$tmp/see-also.h2m" --name="$summary" \
    --version-string="$version" --output="$out" "$wrapper"
