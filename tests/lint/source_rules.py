#!/usr/bin/env python3
"""The rules of docs/architecture.md that a reader can check without building, over src/:

1. Layers only look down: a file includes its own folder, the same layer, or a lower one
   (util < system < parse/facts/knowledge < probe < collect < engine < fleet < fix/report/bundle < app/cli
   < main.cpp).
2. One seam to the machine: only src/system/ spells /sys/, /proc/ or /dev/ paths in code (src/, checks/ and
   probes/ host code).

Usage: source_rules.py SOURCE_DIR. Prints each breach as file:line and exits 1 if there is one.
"""
import os
import re
import sys

# Folders of src/ by layer; a folder may include any folder of its own layer or below.
LAYERS = [
    ["util"],
    ["system"],
    ["parse", "facts", "knowledge"],
    ["probe"],  # compiles and runs the probe programs; the probe collector (collect/) drives it
    ["collect"],
    ["engine"],  # src/engine: Result, the runner, the catalogue loader (checks/ above it holds the checks)
    ["fleet"],  # reports read back as what fleet and diff compare
    ["fix", "report", "bundle"],
    ["app", "cli"],
]
RANK = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
MACHINE_PATH = re.compile(r'"/(sys|proc|dev)/')


def code_part(line):
    """The line without a // comment (good enough for these rules: no "//" inside the paths they look for)."""
    at = line.find("//")
    return line if at < 0 else line[:at]


def machine_path_breaches(root, folder):
    """Lines of `folder` (below root) that spell a machine path outside src/system/."""
    breaches = []
    for where, _, files in os.walk(os.path.join(root, folder)):
        rel_folder = os.path.relpath(where, root)
        if rel_folder.split(os.sep)[:2] == ["src", "system"]:
            continue
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp", ".h")):
                continue
            path = os.path.join(where, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if MACHINE_PATH.search(code_part(line)):
                        breaches.append(f"{os.path.relpath(path, root)}:{number}: a machine path outside "
                                        "src/system/ (name it through system/machine_paths.hpp)")
    return breaches


def layer_breaches(root):
    """Includes of src/ that look up a layer."""
    src = os.path.join(root, "src")
    breaches = []
    for folder, _, files in os.walk(src):
        rel_folder = os.path.relpath(folder, src)
        top = rel_folder.split(os.sep)[0]
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp", ".h")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            own = len(LAYERS) if rel_folder == "." else RANK.get(top)
            if own is None:
                breaches.append(f"{rel}: folder src/{top} has no layer in tests/lint/source_rules.py")
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m and m.group(1) in RANK and RANK[m.group(1)] > own:
                        breaches.append(f"{rel}:{number}: src/{top} includes {m.group(1)}/, a higher layer")
    return breaches


def main():
    root = sys.argv[1]
    breaches = layer_breaches(root)
    for folder in ("src", "checks", "probes"):
        breaches += machine_path_breaches(root, folder)
    for b in breaches:
        print(b)
    if breaches:
        return 1
    print(f"source rules hold over {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
