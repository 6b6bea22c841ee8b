#!/bin/sh
# Prints the subcommands of the dispatch table in src/cli/main.c (its rows are
# `{"name", cmd_name, ...}`), one per line: man/meson.build makes a page for each.
sed -n 's/^ *{"\([a-z0-9-]*\)", cmd_[a-z0-9_]*,.*/\1/p' "$1"
