#!/usr/bin/env bash
# The man pages man/meson.build generates with help2man: one for filterlab, one for every
# command `filterlab --help` lists, and the extra pages named (flbench.1); each has NAME,
# SYNOPSIS, DESCRIPTION and OPTIONS, and groff renders it without a warning (and man -l,
# when man-db is installed).
#
#   tests/cli/test_man.sh FILTERLAB_BINARY MAN_DIR [EXTRA_PAGE...]
#
# Exit 77 (skipped) without groff.
set -u
FL=${1:?usage: test_man.sh FILTERLAB_BINARY MAN_DIR [EXTRA_PAGE...]}
DIR=${2:?usage: test_man.sh FILTERLAB_BINARY MAN_DIR [EXTRA_PAGE...]}
shift 2
command -v groff >/dev/null || { echo "groff is not installed: skipped"; exit 77; }
unset FILTERLAB_KERNEL

passed=0
failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $1: $2"; failed=$((failed + 1)); }

commands=$("$FL" --help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 }
    on && /^  [a-z]/ { print $1 }')
[ "$(echo "$commands" | wc -w)" -ge 20 ] || not_ok "commands" "filterlab --help lists: $commands"

pages="filterlab.1"
for c in $commands; do pages="$pages filterlab-$c.1"; done
pages="$pages $*"

for p in $pages; do
    f=$DIR/$p
    if [ ! -s "$f" ]; then
        not_ok "$p" "missing or empty"
        continue
    fi
    why=""
    for s in NAME SYNOPSIS DESCRIPTION OPTIONS; do
        grep -q "^\.SH $s\$" "$f" || why="$why no $s section;"
    done
    # NAME: "program \- summary"; a command's page is named filterlab-COMMAND
    name=${p%.1}
    sed -n '/^\.SH NAME$/{n;p;}' "$f" | grep -qF "$name \- " ||
        why="$why NAME is not '$name \\- ...';"
    warn=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
    [ -z "$warn" ] || why="$why groff: $warn;"
    if command -v man >/dev/null; then
        warn=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
        [ -z "$warn" ] || why="$why man -l: $warn;"
    fi
    # the rendered page has the help's -h/--help line (the options made it in)
    groff -man -Tutf8 "$f" 2>/dev/null | sed 's/.\x08//g' | grep -q -- "-h, --help" ||
        why="$why no -h, --help in the rendered page;"
    if [ -z "$why" ]; then ok "$p"; else not_ok "$p" "$why"; fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
