#!/usr/bin/env python3
"""The C snippets of README.md are programs: each ```c block is compiled on its own against
the build's headers and static library, as a user would paste it, and run.

A block is compiled with -std=c11 -Wall -Wextra -Werror (a missing #include or declaration
fails), linked against libfilterlab.a and its dependencies, and run in a temporary directory
(snippets may write files); it passes when it exits 0. A block that must not run (it needs a
file or a server the test does not have) carries the comment COMPILE_ONLY (below) and is only
compiled and linked.

usage: test_readme_c.py README.md --include DIR --lib LIBFILTERLAB_A [--sanitize LIST]
                        [--self-test] -- CC [CC_ARGS...]

--sanitize is meson's b_sanitize (none, address,undefined, thread, ...): the snippets are built
with the same -fsanitize as the library. --self-test first checks the checker on a README of
its own: a good block passes, a block missing an #include fails, a block that calls abort()
fails when run and passes when marked compile-only.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

COMPILE_ONLY = "/* readme-test: compile only */"
FENCE = re.compile(r"^```c\s*$")
RUN_TIMEOUT = 120


def c_blocks(text):
    """(first line number, code) of every ```c block."""
    blocks, code, start = [], None, 0
    for number, line in enumerate(text.splitlines(), 1):
        if code is None:
            if FENCE.match(line):
                code, start = [], number + 1
        elif line.startswith("```"):
            blocks.append((start, "\n".join(code) + "\n"))
            code = None
        else:
            code.append(line)
    if code is not None:
        blocks.append((start, None))  # unterminated fence
    return blocks


def link_flags():
    pc = subprocess.run(["pkg-config", "--libs", "libxxhash", "libzstd"], capture_output=True,
                        text=True)
    if pc.returncode != 0:
        sys.exit(f"pkg-config --libs libxxhash libzstd failed: {pc.stderr.strip()}")
    return shlex.split(pc.stdout) + ["-lm", "-pthread"]


def check(text, name, opts, work):
    """Failures (one line each) of the C blocks of text."""
    blocks = c_blocks(text)
    if not blocks:
        return [f"{name}: no ```c block found"]
    failures = []
    for i, (line, code) in enumerate(blocks):
        where = f"{name}:{line}"
        if code is None:
            failures.append(f"{where}: the ```c block is not closed")
            continue
        src = os.path.join(work, f"snippet{i}.c")
        exe = os.path.join(work, f"snippet{i}")
        with open(src, "w") as f:
            f.write(code)
        cmd = opts.cc + ["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1",
                         "-I", opts.include] + opts.san + [src, opts.lib] + opts.libs + \
            ["-o", exe]
        built = subprocess.run(cmd, capture_output=True, text=True)
        if built.returncode != 0:
            failures.append(f"{where}: does not compile:\n{built.stderr.rstrip()}")
            continue
        if COMPILE_ONLY in code:
            print(f"ok - {where} (compiled, not run: marked compile-only)")
            continue
        rundir = os.path.join(work, f"run{i}")
        os.mkdir(rundir)
        try:
            ran = subprocess.run([exe], cwd=rundir, capture_output=True, text=True,
                                 timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            failures.append(f"{where}: still running after {RUN_TIMEOUT} s")
            continue
        if ran.returncode != 0:
            failures.append(f"{where}: exits {ran.returncode}:\n{ran.stdout}{ran.stderr}".rstrip())
            continue
        print(f"ok - {where}: {ran.stdout.strip()}")
    return failures


def self_test(opts, work):
    """The checker itself: what must pass passes and what must fail fails."""
    good = ("#include <stdio.h>\n#include <filterlab.h>\n"
            "int main(void) { printf(\"%s\\n\", fl_strerror(FL_OK)); return 0; }")
    no_include = "#include <filterlab.h>\nint main(void) { printf(\"x\\n\"); return 0; }"
    aborts = "#include <stdlib.h>\nint main(void) { abort(); }"
    cases = [
        ("a good block", good, True),
        ("a block missing <stdio.h>", no_include, False),
        ("a block that aborts", aborts, False),
        ("a compile-only block that would abort", COMPILE_ONLY + "\n" + aborts, True),
        ("an unterminated block", "```c\nint main(void) { return 0; }\n", False),
    ]
    wrong = []
    for i, (what, code, passes) in enumerate(cases):
        text = f"# t\n\n```c\n{code}\n```\n" if not code.startswith("```") else code
        sub = os.path.join(work, f"self{i}")
        os.mkdir(sub)
        print(f"# self-test: {what}")
        got = not check(text, f"self-test {i}", opts, sub)
        if got != passes:
            wrong.append(f"self-test: {what} should {'pass' if passes else 'fail'}")
    return wrong


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("readme")
    ap.add_argument("--include", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--sanitize", default="none")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("cc", nargs="+")
    opts = ap.parse_args()
    opts.san = [] if opts.sanitize in ("", "none") else [f"-fsanitize={opts.sanitize}"]
    opts.libs = link_flags()
    with tempfile.TemporaryDirectory(prefix="readme-c-") as work:
        failures = self_test(opts, work) if opts.self_test else []
        with open(opts.readme, encoding="utf-8") as f:
            text = f.read()
        failures += check(text, os.path.basename(opts.readme), opts, work)
    for line in failures:
        print(f"FAIL {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
