#!/usr/bin/env python3
"""No function of the fix scripts' library is defined twice.

Every rendered script holds fixes/lib.bash whole; bash keeps the last definition of a name, so a second
`gd_x() {` silently replaces the first, and the recipes that call the first run the other one (a verify step
that passes by accident). The same holds for a test library the root tests source (tests/root/*.bash).

Usage: shell_functions.py SOURCE_DIR. Prints each name defined twice with both lines and exits 1 if any.
"""
import os
import re
import sys

DEFINITION = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(\)\s*\{")
LIBRARIES = ["fixes/lib.bash", "tests/root/lib.bash", "tests/root/faults.bash",
             "tests/root/debian_root.bash"]


def definitions(path):
    seen = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = DEFINITION.match(line)
            if m:
                seen.setdefault(m.group(1), []).append(number)
    return {name: lines for name, lines in seen.items() if len(lines) > 1}


def main():
    root = sys.argv[1]
    bad = 0
    for rel in LIBRARIES:
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            continue
        for name, lines in sorted(definitions(path).items()):
            print(f"{rel}: {name} is defined on lines {', '.join(map(str, lines))}: the last one wins")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
