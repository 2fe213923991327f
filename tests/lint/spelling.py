#!/usr/bin/env python3
"""No word of src/ or checks/ is one that lintian's spelling check corrects.

The knowledge tables and the messages are built into the binary, and lintian reads the binary's strings: a typo
there (one quoted from a public report included) fails the package's test (tests/root/deb_package.sh) only at the
end of a long root run. This finds it in a second, from the same list lintian uses. A line that names lintian
is the explanation of a word spelled on purpose and is not read.

Usage: spelling.py SOURCE_DIR [CORRECTIONS]. Exits 77 (skipped) when lintian's list is not installed.
"""
import os
import re
import sys

CORRECTIONS = "/usr/share/lintian/data/spelling/corrections"
WORD = re.compile(r"[A-Za-z]+")


def corrections(path):
    table = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "||" in line:
                wrong, right = line.split("||", 1)
                table[wrong] = right
    return table


def misspellings(root, table):
    found = []
    for folder in ("src", "checks"):
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                path = os.path.join(directory, name)
                try:
                    with open(path, encoding="utf-8") as f:
                        lines = f.read().split("\n")
                except (UnicodeDecodeError, OSError):
                    continue
                for number, line in enumerate(lines, 1):
                    if "lintian" in line:
                        continue
                    for word in WORD.findall(line):
                        right = table.get(word.lower())
                        if right:
                            found.append(f"{os.path.relpath(path, root)}:{number}: {word} (lintian: {right})")
    return found


def main():
    root = sys.argv[1]
    path = sys.argv[2] if len(sys.argv) > 2 else CORRECTIONS
    if not os.path.exists(path):
        print(f"skipped: {path} is missing (apt-get install lintian)")
        return 77
    found = misspellings(root, corrections(path))
    for line in found:
        print(line)
    if found:
        return 1
    print(f"no word of {root}/src or {root}/checks is in lintian's corrections")
    return 0


if __name__ == "__main__":
    sys.exit(main())
