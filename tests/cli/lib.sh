# Shared by tests/cli/test_cli.sh and tests/cli/test_cli_safety.sh: sourced (bash) once the
# script has set FL (the filterlab binary, an absolute path) and T (its scratch directory,
# also the working directory). A script may define check_selected NAME (status 0: run the
# check) to run only some of its checks.

# In a cross build meson runs tests with its exe_wrapper (qemu-aarch64) in
# MESON_EXE_WRAPPER: every "$FL" call then goes through a small wrapper script.
if [ -n "${MESON_EXE_WRAPPER:-}" ]; then
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$MESON_EXE_WRAPPER" "$FL" >"$T/filterlab"
    chmod +x "$T/filterlab"
    FL=$T/filterlab
fi

passed=0
failed=0
skipped=0

# check NAME FUNCTION [ARGS...]: runs FUNCTION in a subshell with `set -e`. A function
# that prints "SKIP: reason" and returns 77 is reported as skipped.
check() {
    local name=$1
    shift
    if declare -F check_selected >/dev/null && ! check_selected "$name"; then
        return 0
    fi
    # stdin is /dev/null so a command that wrongly reads it cannot hang the suite. The
    # subshell must stand alone: in an `if` condition or before || bash ignores `set -e`.
    (set -e; "$@") >"$T/check.log" 2>&1 </dev/null
    local status=$?
    if [ "$status" -eq 0 ]; then
        echo "ok - $name"
        passed=$((passed + 1))
    elif [ "$status" -eq 77 ]; then
        echo "ok - $name # skip $(sed -n 's/^SKIP: //p' "$T/check.log" | head -1)"
        skipped=$((skipped + 1))
    else
        echo "not ok - $name"
        awk -v p="$name" '{ print "#   " p ": " $0 }' "$T/check.log" >&2
        failed=$((failed + 1))
    fi
}

fail() { echo "FAIL: $*"; return 1; }

# run CMD...: stdout -> $T/out, stderr -> $T/err, status -> RC. A death by signal
# (status >= 128) is a crash and fails the check.
run() {
    RC=0
    "$@" >"$T/out" 2>"$T/err" || RC=$?
    if [ "$RC" -ge 128 ]; then
        fail "crashed (status $RC): $*"
    fi
    return 0
}

# expect_ok CMD...: status 0 and nothing on stderr.
expect_ok() {
    run "$@"
    [ "$RC" -eq 0 ] || fail "status $RC, expected 0: $* :: $(cat "$T/err")"
    [ ! -s "$T/err" ] || fail "unexpected stderr: $* :: $(cat "$T/err")"
}

# expect_error CODE CMD...: status CODE and exactly one stderr line starting "filterlab: ".
expect_error() {
    local code=$1
    shift
    run "$@"
    [ "$RC" -eq "$code" ] || fail "status $RC, expected $code: $* :: $(cat "$T/err")"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "expected one stderr line: $* :: $(cat "$T/err")"
    grep -q '^filterlab: ' "$T/err" || fail "stderr lacks the 'filterlab: ' prefix: $(cat "$T/err")"
}
