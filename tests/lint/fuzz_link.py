#!/usr/bin/env python3
"""The fuzz targets link: every file a fuzz library compiles (fuzz/CMakeLists.txt) includes, directly or
through headers, only headers whose .cpp that library compiles too (or links from a library it names).

The fuzz build is clang's and runs last in .ci/run, after an hour of other suites; a parser that starts using
a util function from a file the fuzz libraries leave out builds and passes everywhere else and fails only
there, at link time. This rule finds it in the lint suite, without clang.

A header without a .cpp of the same name is header-only and needs nothing. Usage: fuzz_link.py SOURCE_DIR
(prints each breach, exits 1 if there is one); fuzz_link.py --self-test plants one and fails unless it is
reported.
"""
import glob
import os
import re
import sys

LIBRARY = re.compile(r"add_library\((\w+)\s+STATIC\s+(.*?)\)", re.S)
GLOB = re.compile(r"file\(GLOB\s+(\w+)\s+(?:CONFIGURE_DEPENDS\s+)?(.*?)\)", re.S)
LINKS = re.compile(r"target_link_libraries\((\w+)\s+(?:PUBLIC|PRIVATE|INTERFACE)\s+(.*?)\)", re.S)
TARGET_TABLE = re.compile(r"gpudoctor_add_fuzz_targets\(([\w.]+)\s+\S+\s+(\w+)\)")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def expand(root, words, globs):
    """Source files (relative to root) that a CMake list of words names."""
    files = set()
    for word in words.split():
        if word.startswith("${") and word.endswith("}") and word[2:-1] in globs:
            files |= globs[word[2:-1]]
        elif word.startswith("${CMAKE_SOURCE_DIR}/"):
            pattern = word[len("${CMAKE_SOURCE_DIR}/"):]
            files |= {os.path.relpath(p, root) for p in glob.glob(os.path.join(root, pattern))}
    return files


def libraries(root, cmake_text):
    """{library: set of sources it compiles, itself and the libraries it links}."""
    globs = {m.group(1): expand(root, m.group(2), {}) for m in GLOB.finditer(cmake_text)}
    own = {m.group(1): expand(root, m.group(2), globs) for m in LIBRARY.finditer(cmake_text)}
    links = {m.group(1): m.group(2).split() for m in LINKS.finditer(cmake_text)}

    def closure(name, seen=()):
        sources = set(own.get(name, set()))
        for other in links.get(name, []):
            if other in own and other not in seen:
                sources |= closure(other, seen + (name,))
        return sources

    return {name: closure(name) for name in own}


def resolve(root, including, name):
    """The file an include names: src/NAME, the including file's folder, or the fuzz folder; None if a
    system header."""
    for candidate in (os.path.join("src", name), os.path.join(os.path.dirname(including), name),
                      os.path.join("fuzz", name)):
        if os.path.isfile(os.path.join(root, candidate)):
            return os.path.normpath(candidate)
    return None


def breaches_of(root, library, sources, extra_roots):
    """Headers reached from the library's files (and the target table) whose .cpp it does not compile."""
    found = []
    queue = sorted(sources) + list(extra_roots)
    seen = set(queue)
    while queue:
        rel = queue.pop()
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for name in INCLUDE.findall(text):
            target = resolve(root, rel, name)
            if target is None:
                continue
            implementation = os.path.splitext(target)[0] + ".cpp"
            if (target.endswith(".hpp") and os.path.isfile(os.path.join(root, implementation)) and
                    implementation not in sources):
                found.append(f"{rel}: includes {name}, but fuzz library {library} does not compile "
                             f"{implementation} (add it to fuzz/CMakeLists.txt, or the fuzz targets fail to link)")
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return found


def breaches(root):
    with open(os.path.join(root, "fuzz", "CMakeLists.txt"), encoding="utf-8") as f:
        cmake_text = f.read()
    libs = libraries(root, cmake_text)
    found = []
    tables = {}
    for m in TARGET_TABLE.finditer(cmake_text):
        tables.setdefault(m.group(2), []).append(os.path.join("fuzz", m.group(1)))
    for name, sources in sorted(libs.items()):
        found += breaches_of(root, name, sources, tables.get(name, []))
    return sorted(set(found))


def self_test():
    """A parser that calls into a util file the fuzz library leaves out is reported; one it compiles is not."""
    import tempfile
    files = {
        "fuzz/CMakeLists.txt": ("file(GLOB P CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/parse/*.cpp)\n"
                                "add_library(lib_p STATIC ${P} ${CMAKE_SOURCE_DIR}/src/util/text.cpp)\n"
                                "add_library(lib_s STATIC ${CMAKE_SOURCE_DIR}/src/system/s.cpp)\n"
                                "target_link_libraries(lib_s PUBLIC lib_p fmt::fmt)\n"
                                "gpudoctor_add_fuzz_targets(t.hpp k lib_s)\n"),
        "fuzz/t.hpp": '#include "system/s.hpp"\n#include "util/header_only.hpp"\n',
        "src/parse/a.cpp": '#include "parse/a.hpp"\n#include "util/text.hpp"\n',
        "src/parse/a.hpp": '#include "util/url.hpp"\n#include <string>\n',
        "src/util/text.hpp": "", "src/util/text.cpp": "",
        "src/util/url.hpp": "", "src/util/url.cpp": "",
        "src/util/header_only.hpp": '#include "util/text.hpp"\n',
        "src/system/s.hpp": "", "src/system/s.cpp": '#include "system/s.hpp"\n#include "util/json.hpp"\n',
        "src/util/json.hpp": "", "src/util/json.cpp": "",
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        found = breaches(root)
    reported = sorted({(b.split(":")[0], b.split("fuzz library ")[1].split()[0]) for b in found})
    expected = [("src/parse/a.hpp", "lib_p"), ("src/parse/a.hpp", "lib_s"), ("src/system/s.cpp", "lib_s")]
    if reported != expected:
        print(f"self-test: reported {reported}, expected {expected}")
        return 1
    print(f"self-test: the {len(expected)} planted breaches are reported, header-only and compiled files are not")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    found = breaches(sys.argv[1])
    for b in found:
        print(b)
    if found:
        return 1
    print(f"the fuzz libraries of {sys.argv[1]}/fuzz/CMakeLists.txt compile what their files include")
    return 0


if __name__ == "__main__":
    sys.exit(main())
