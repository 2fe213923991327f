#!/usr/bin/env python3
"""No pipeline in the project's shell ends in a reader that quits early.

Under `set -o pipefail` (the rendered fix scripts and the tests use it), `producer | grep -q x` fails when grep
has its match and exits before the producer has written everything: the producer dies of SIGPIPE and the
pipeline's status is 141, so the test sees "no match". It depends on how the producer writes (one write or one
per line) and on the scheduler, so it passes on a quiet machine and fails on a loaded one (CI failed this way).
The same holds for `| head`, `| grep -m N`, `| awk '... exit'` and `| sed '...q'`. A here-string
(`grep -q x <<<"$(producer)"`) or a reader that reads to the end (`sed -n 1,5p`) has no such race.

Usage: shell_pipes.py SOURCE_DIR. Prints each breach as file:line and exits 1 if there is one.
"""
import os
import re
import shlex
import subprocess
import sys

PIPE = re.compile(r"(?<![|>])\|(?![|&])\s*")
SHELL_SUFFIXES = (".sh", ".bash")
# Files that hold shell without a shell suffix: the fix recipes' steps and scripts with a shebang.
SHELL_SHEBANG = re.compile(rb"^#!.*\b(ba)?sh\b")


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
    return [name.decode() for name in out.split(b"\0") if name]


def holds_shell(root, name):
    if name.endswith(SHELL_SUFFIXES) or (name.startswith("fixes/") and name.endswith(".yaml")):
        return True
    if name.startswith("tests/") and "/data/" in name:  # real samples, not our shell
        return False
    try:
        with open(os.path.join(root, name), "rb") as f:
            return bool(SHELL_SHEBANG.match(f.readline()))
    except OSError:
        return False


def words(command):
    """The first words of a command, as the shell splits them (good enough: a quote left open ends it)."""
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split()


def quits_early(reader):
    """Why the command after a `|` may stop reading before its input ends, or None."""
    argv = words(reader)
    if not argv:
        return None
    # "head)" at the end of a command substitution is head too.
    program, options = re.match(r"[^)\"'`;]*", argv[0]).group(0), []
    for word in argv[1:]:
        if not word.startswith("-") or word == "--":
            break
        options.append(word)
    if program == "head":
        return "head stops reading after its lines"
    if program in ("grep", "egrep", "fgrep"):
        for o in options:
            if o in ("--quiet", "--silent") or o.startswith(("--max-count", "-m")):
                return f"grep {o} stops at its first match"
            if not o.startswith("--") and "q" in o:
                return f"grep {o} stops at its first match"
    if program == "awk" and re.search(r"\bexit\b", reader):
        return "awk exits before the end of its input"
    if program == "sed" and re.search(r"(^|[;'\"{}\s])q(\s*\d*)?\s*($|[;'\"}])", " ".join(argv[1:])):
        return "sed quits before the end of its input"
    return None


def breaches_in(root, name):
    found = []
    with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if line.lstrip().startswith("#"):
                continue
            for m in PIPE.finditer(line):
                why = quits_early(line[m.end():])
                if why:
                    found.append(f"{name}:{number}: {why}; under pipefail the writer's SIGPIPE fails the "
                                 "pipeline (use a here-string or a reader that reads to the end)")
    return found


def main():
    root = sys.argv[1]
    breaches = []
    for name in tracked_files(root):
        if holds_shell(root, name):
            breaches += breaches_in(root, name)
    for b in breaches:
        print(b)
    if breaches:
        return 1
    print(f"no pipeline ends in an early reader over {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
