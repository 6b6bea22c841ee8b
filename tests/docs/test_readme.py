#!/usr/bin/env python3
"""Replays the shell examples of README.md and compares their output with the README's.

    tests/docs/test_readme.py FILTERLAB_BINARY README.md

An example is a code block (fenced, or indented by 4 spaces) with lines starting "$ ": each
such line is a command, the lines after it up to the next command or the end of the block are
the output it must print (standard output and standard error together; blank lines
before the next command are layout). Every command of every
example runs in README order, each in its own `bash -c`, all in one scratch directory (files
made by one example are there for the next), with the built `filterlab` first on PATH.

The shown output is compared line by line (trailing spaces ignored), where:
  - a line that is only "..." stands for any number of lines, none included;
  - a line ending in " ..." stands for one line that starts with the text before " ...".
A command must exit 0 unless the output shown for it has a "filterlab: " error line.
A block right after the line `<!-- readme-test: skip REASON -->` is not run (a block that
needs a running server, or a file from outside the repository).

Prints "ok - README.md:LINE $ COMMAND" or "not ok - ..." per command, each failure with
the block, the command, its exit status, the expected and actual output and a diff; then
"N passed, M failed". Exits 1 if any command failed.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP_MARK = re.compile(r"^<!--\s*readme-test:\s*skip\s+(\S.*?)\s*-->\s*$")
COMMAND_TIMEOUT = 300  # seconds; qemu and the sanitizers are slow


class Command:
    def __init__(self, line, text):
        self.line = line      # 1-based line number in the README
        self.text = text      # the command, without "$ "
        self.expected = []    # the output lines shown after it


class Block:
    def __init__(self, line, heading, skip_reason):
        self.line = line
        self.heading = heading
        self.skip_reason = skip_reason
        self.commands = []


def parse(path):
    """The README's example blocks: code blocks holding at least one "$ " line."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    heading = "(top)"
    i = 0
    prev_nonblank = ""

    def add_block(start, body):
        # body: list of (line number, text) with the block's indentation removed.
        while body and not body[-1][1].strip():
            body.pop()
        if not any(t.startswith("$ ") for _, t in body):
            return
        m = SKIP_MARK.match(prev_nonblank)
        block = Block(start, heading, m.group(1) if m else None)
        for n, t in body:
            if t.startswith("$ "):
                block.commands.append(Command(n, t[2:]))
            elif not block.commands:
                raise SystemExit(f"{path}:{n}: output before the block's first '$ ' command")
            else:
                block.commands[-1].expected.append(t)
        blocks.append(block)

    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            start = i + 1
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append((i + 1, lines[i]))
                i += 1
            add_block(start, body)
            prev_nonblank = ""
            i += 1
            continue
        if line.startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            start = i + 1
            body = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append((i + 1, lines[i][4:]))
                i += 1
            add_block(start, body)
            prev_nonblank = ""
            continue
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.strip():
            prev_nonblank = line.strip()
        i += 1
    return blocks


def matches(expected, actual):
    """Whether the actual lines fit the expected ones, "..." lines as wildcards."""
    memo = {}

    def fit(e, a):
        key = (e, a)
        if key in memo:
            return memo[key]
        if e == len(expected):
            ok = a == len(actual)
        elif expected[e].strip() == "...":
            ok = any(fit(e + 1, k) for k in range(a, len(actual) + 1))
        elif a == len(actual):
            ok = False
        elif expected[e].endswith(" ..."):
            ok = actual[a].startswith(expected[e][:-4]) and fit(e + 1, a + 1)
        else:
            ok = expected[e] == actual[a] and fit(e + 1, a + 1)
        memo[key] = ok
        return ok

    return fit(0, 0)


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: test_readme.py FILTERLAB_BINARY README.md")
    filterlab, readme = (os.path.abspath(p) for p in sys.argv[1:])
    name = os.path.basename(readme)
    blocks = parse(readme)
    if not blocks:
        raise SystemExit(f"{readme}: no '$ ' examples found")

    tmp = tempfile.mkdtemp(prefix="filterlab-readme.")
    try:
        bindir = os.path.join(tmp, "bin")
        work = os.path.join(tmp, "work")
        os.mkdir(bindir)
        os.mkdir(work)
        # In a cross build meson runs tests with its exe_wrapper (qemu) in MESON_EXE_WRAPPER.
        wrapper = os.environ.get("MESON_EXE_WRAPPER", "")
        with open(os.path.join(bindir, "filterlab"), "w") as f:
            f.write(f'#!/bin/sh\nexec {wrapper} "{filterlab}" "$@"\n')
        os.chmod(os.path.join(bindir, "filterlab"), 0o755)
        env = dict(os.environ)
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin")
        env["LC_ALL"] = "C"
        env.pop("FILTERLAB_KERNEL", None)  # examples show what the CPU picks

        passed = failed = skipped = 0
        for number, block in enumerate(blocks, 1):
            where = f"block {number} at {name}:{block.line} (section '{block.heading}')"
            if block.skip_reason:
                print(f"# skipped {where}: {block.skip_reason}")
                skipped += len(block.commands)
                continue
            for cmd in block.commands:
                label = f"{name}:{cmd.line} $ {cmd.text}"
                try:
                    r = subprocess.run(["bash", "-c", cmd.text], cwd=work, env=env,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT)
                    out, status = r.stdout.decode("utf-8", "replace"), r.returncode
                except subprocess.TimeoutExpired as e:
                    out = (e.output or b"").decode("utf-8", "replace")
                    status = f"killed after {COMMAND_TIMEOUT} s"
                actual = [l.rstrip() for l in out.split("\n")]
                if actual and actual[-1] == "":
                    actual.pop()
                expected = [l.rstrip() for l in cmd.expected]
                while expected and not expected[-1]:
                    expected.pop()  # a blank line before the next command is layout
                shows_error = any(l.startswith("filterlab: ") for l in expected)
                problems = []
                if not matches(expected, actual):
                    problems.append("output differs")
                if status != 0 and not shows_error:
                    problems.append(f"exit status {status}")
                if not problems:
                    print(f"ok - {label}")
                    passed += 1
                    continue
                failed += 1
                print(f"not ok - {label}")
                report = [f"{where}, command at line {cmd.line}: {'; '.join(problems)}",
                          f"  $ {cmd.text}", f"  exit status: {status}",
                          "  expected (README):"]
                report += [f"  | {l}" for l in expected] or ["  (no output)"]
                report += ["  got:"]
                report += [f"  | {l}" for l in actual] or ["  (no output)"]
                if "output differs" in problems:
                    report += ["  diff (- README, + got; '...' lines are wildcards):"]
                    report += [f"  {l}" for l in difflib.unified_diff(
                        expected, actual, lineterm="", n=1)][2:]
                print("\n".join(report), flush=True)
        print(f"{passed} passed, {failed} failed (and {skipped} not run: in skipped blocks)")
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
