#!/usr/bin/env python3
"""The rules of docs/architecture.md that a reader can check without building, over src/:

1. Layers only look down: a file includes its own folder, the same layer, or a lower one
   (util < system < parse/facts/knowledge < probe < collect < engine < fleet < fix/report/bundle < app/cli/tools
   < main.cpp).
2. One seam to the machine: only src/system/ spells /sys/, /proc/ or /dev/ paths in code (src/, checks/ and
   probes/ host code).
3. One writer of gpudoctor's own messages: only src/util/diagnostics.cpp writes to stderr (src/ and checks/;
   the probe programs of probes/ are programs of their own). Named exceptions: the signal path's
   async-signal-safe write(2) in src/system/lifecycle.cpp.
4. The fix engine does not talk: src/fix/ prints nothing, to stdout or through diag::; it reports events and
   asks questions through its front end (fix/events.hpp), which app/ renders.
5. Checks judge typed facts: checks/ includes only checks/, facts/, knowledge/, util/, the check interface
   (engine/check.hpp) and the machine's path names (system/machine_paths.hpp). What needs a parser or the
   machine is read by collect/ and joined by its link stage (collect/link_facts.hpp) before any check runs.
6. One table of the shell profiles and NCCL's files (src/system/config_files.cpp): no other file of src/ or
   checks/ spells one of its paths in a string, and fixes/lib.bash names none outside a comment (the
   scripts get the list rendered from the table).
7. One table of the recorded commands (src/system/commands_recorded.cpp): no other file of src/ builds a
   command under a fixed key (`CommandSpec{"key", ...}`, `.run({"key", ...})`); keys made per program or
   path ("python-env@" + program) are built where they are run.

Usage: source_rules.py SOURCE_DIR. Prints each breach as file:line and exits 1 if there is one.
source_rules.py --self-test: plants each breach the rules name in a temporary tree and fails unless every one
is reported (and the named exceptions are not).
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
    ["app", "cli", "tools"],  # tools: the build's own programs (the data packer)
]
RANK = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
MACHINE_PATH = re.compile(r'"/(sys|proc|dev)/')


def code_part(line):
    """The line without a // comment (good enough for these rules: no "//" inside the paths they look for)."""
    at = line.find("//")
    return line if at < 0 else line[:at]


def source_files(root, folder):
    """(path relative to root, text) of each C++ source and header below root/folder, in a stable order."""
    for where, dirs, files in os.walk(os.path.join(root, folder)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".cpp", ".hpp", ".h")):
                path = os.path.join(where, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    yield os.path.relpath(path, root), f.read()


def machine_path_breaches(root, folder):
    """Lines of `folder` (below root) that spell a machine path outside src/system/."""
    breaches = []
    for rel, text in source_files(root, folder):
        if rel.split(os.sep)[:2] == ["src", "system"]:
            continue
        for number, line in enumerate(text.split("\n"), 1):
            if MACHINE_PATH.search(code_part(line)):
                breaches.append(f"{rel}:{number}: a machine path outside "
                                "src/system/ (name it through system/machine_paths.hpp)")
    return breaches


# A write to stderr: the stdio and iostream ways, fmt's, and write(2) on its descriptor.
STDERR_WRITE = re.compile(r'\b(fprintf|fputs|fputc|fwrite|vfprintf|fmt::print|std::print|std::println)\s*\([^;]*\bstderr\b'
                          r'|\bstd::(cerr|clog)\b|\bwrite\s*\(\s*(STDERR_FILENO|2)\s*,')
STDERR_WRITERS = {
    os.path.join("src", "util", "diagnostics.cpp"): "the diagnostics module",
    os.path.join("src", "tools", "pack_data.cpp"): "a build step's program, not gpudoctor",
}
STDERR_EXCEPTIONS = {
    # (file, what the line must hold): the signal path cannot take a lock or allocate.
    (os.path.join("src", "system", "lifecycle.cpp"), "::write(STDERR_FILENO"),
}


def stderr_breaches(root):
    """Writes to stderr outside the diagnostics module (util/diagnostics.hpp) and the named exceptions."""
    breaches = []
    for folder in ("src", "checks"):
        for rel, text in source_files(root, folder):
            if rel in STDERR_WRITERS:
                continue
            # Statements may span lines: judge each statement's code, reported at its first line.
            code = "\n".join(code_part(line) for line in text.split("\n"))
            for m in STDERR_WRITE.finditer(code):
                number = code.count("\n", 0, m.start()) + 1
                line = text.split("\n")[number - 1]
                if any(rel == f and held in line for f, held in STDERR_EXCEPTIONS):
                    continue
                breaches.append(f"{rel}:{number}: a write to stderr outside util/diagnostics "
                                "(say it through diag::error, diag::warning, ... or return a Failure)")
    return breaches


# Output from the fix engine: stdio and iostream, fmt's print, the diagnostics edge.
ENGINE_OUTPUT = re.compile(r'\b(std::)?(printf|puts|fputs|fwrite|putchar|vprintf|fprintf)\s*\('
                           r'|\bfmt::print\b|\bstd::(cout|cerr|clog|print|println)\b|\bdiag::\w+')


def engine_output_breaches(root):
    """Lines of src/fix/ that print instead of reporting an event."""
    breaches = []
    for rel, text in source_files(root, os.path.join("src", "fix")):
        for number, line in enumerate(text.split("\n"), 1):
            if ENGINE_OUTPUT.search(code_part(line)):
                breaches.append(f"{rel}:{number}: the fix engine prints "
                                "(report an event to its Frontend, fix/events.hpp)")
    return breaches


# What checks/ may include: whole folders, and single headers of the layers below.
CHECK_INCLUDE_FOLDERS = {"checks", "facts", "knowledge", "util"}
CHECK_INCLUDE_FILES = {"engine/check.hpp", "system/machine_paths.hpp"}
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def check_include_breaches(root):
    """Includes of checks/ beyond the facts, the knowledge base and the check interface."""
    breaches = []
    for rel, text in source_files(root, "checks"):
        for number, line in enumerate(text.split("\n"), 1):
            m = QUOTED_INCLUDE.match(line)
            if not m:
                continue
            header = m.group(1)
            folder = header.split("/")[0] if "/" in header else "checks"
            if folder in CHECK_INCLUDE_FOLDERS or header in CHECK_INCLUDE_FILES:
                continue
            breaches.append(f"{rel}:{number}: a check includes {header} (checks judge facts: "
                            "parse and join in collect/, link_facts.hpp)")
    return breaches


CONFIG_TABLE = os.path.join("src", "system", "config_files.cpp")
CONFIG_ROW = re.compile(r'ConfigFile\{"([^"]+)",\s*(true|false),\s*U::(profile|nccl|docker_daemon)\b')


def config_names(root, uses=("profile", "nccl", "docker_daemon")):
    """The table's rows of `uses` as the words a copy would spell: a home's file by its name (".bashrc"),
    a system file or folder by its path ("/etc/environment", "/etc/profile.d")."""
    with open(os.path.join(root, CONFIG_TABLE), encoding="utf-8") as f:
        rows = CONFIG_ROW.findall(f.read())
    names = set()
    for path, in_home, use in rows:
        if use not in uses:
            continue
        path = path.split("/*")[0]
        names.add(path.rsplit("/", 1)[-1] if in_home == "true" else path)
    return names


def spelling_of(names):
    """A pattern of the names as a word; a system path also as a bundle spells it ("etc/zsh/zshenv")."""
    spelled = ["/?" + re.escape(n[1:]) if n.startswith("/") else re.escape(n)
               for n in sorted(names, key=len, reverse=True)]
    return re.compile("(?<![\\w.])(" + "|".join(spelled) + ")(?![\\w.])")


def config_copy_breaches(root):
    """Strings of src/ and checks/ that spell a profile, NCCL or Docker daemon row of the table, and code
    lines of fixes/lib.bash that spell a profile or NCCL row (nvidia-ctk, which the script runs, picks
    Docker's file itself)."""
    names = config_names(root)
    if not names:
        return [f"{CONFIG_TABLE}: no profile rows found (has the table's form changed?)"]
    word = spelling_of(names)
    literal = re.compile(r'"(?:[^"\\\n]|\\.)*"')
    breaches = []
    for folder in ("src", "checks"):
        for rel, text in source_files(root, folder):
            if rel == CONFIG_TABLE:
                continue
            for number, line in enumerate(text.split("\n"), 1):
                for lit in literal.findall(code_part(line)):
                    if m := word.search(lit):
                        breaches.append(f"{rel}:{number}: spells {m.group(1)}, a row of the configuration "
                                        "table (name it through system/config_files.hpp)")
    lib = os.path.join(root, "fixes", "lib.bash")
    script_word = spelling_of(config_names(root, ("profile", "nccl")))
    if os.path.exists(lib):
        with open(lib, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f.read().split("\n"), 1):
                if not line.lstrip().startswith("#") and (m := script_word.search(line)):
                    breaches.append(f"fixes/lib.bash:{number}: spells {m.group(1)}, a row of the configuration "
                                    "table (the script gets GD_PROFILE_*_FILES from it)")
    return breaches


COMMAND_TABLE = os.path.join("src", "system", "commands_recorded.cpp")
FIXED_KEY_COMMAND = re.compile(r'(\bCommandSpec\s*\w*\s*\{|\.run\(\s*(CommandSpec\s*)?\{)\s*"[^"]*"\s*,')


def command_copy_breaches(root):
    """Commands of src/ built under a fixed key outside the table of recorded commands."""
    breaches = []
    for rel, text in source_files(root, "src"):
        if rel == COMMAND_TABLE:
            continue
        # A command may span lines: look at the code joined, then name the line it starts on.
        code = "\n".join(code_part(line) for line in text.split("\n"))
        for m in FIXED_KEY_COMMAND.finditer(code):
            number = code.count("\n", 0, m.start()) + 1
            breaches.append(f"{rel}:{number}: a command under a fixed key outside the table of recorded "
                            "commands (add a row to system/commands_recorded.cpp)")
    return breaches


def layer_breaches(root):
    """Includes of src/ that look up a layer."""
    breaches = []
    for rel, text in source_files(root, "src"):
        parts = rel.split(os.sep)[1:]
        top = parts[0] if len(parts) > 1 else "."
        own = len(LAYERS) if top == "." else RANK.get(top)
        if own is None:
            breaches.append(f"{rel}: folder src/{top} has no layer in tests/lint/source_rules.py")
            continue
        for number, line in enumerate(text.split("\n"), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) in RANK and RANK[m.group(1)] > own:
                breaches.append(f"{rel}:{number}: src/{top} includes {m.group(1)}/, a higher layer")
    return breaches


def self_test():
    """The rules catch what they name: each planted breach is reported at its line, the exceptions are not."""
    import tempfile
    planted = {
        os.path.join("src", "app", "a.cpp"): ("void f() {\n  std::fprintf(\n      stderr, \"x\");\n"
                                            "  fmt::print(stderr, \"y\");\n  std::cerr << 1;\n"
                                            "  std::fputs(s, stderr);\n  fwrite(p, 1, n, stderr);\n}\n"),
        os.path.join("checks", "c.cpp"): "void g() { ::write(2, \"a\", 1); }\n",
        os.path.join("checks", "d.cpp"): ("#include \"checks/common.hpp\"\n#include \"parse/parsers.hpp\"\n"
                                         "#include \"engine/check.hpp\"\n#include \"engine/runner.hpp\"\n"
                                         "#include \"system/machine_paths.hpp\"\n#include \"system/run.hpp\"\n"
                                         "#include \"local.hpp\"\n#include <vector>\n"),
        os.path.join("src", "fix", "b.cpp"): "#include \"app/commands.hpp\"\nconst char* p = \"/proc/x\";\n",
        os.path.join("src", "fix", "e.cpp"): ("void e() {\n  std::printf(\"x\");\n  diag::warning(\"y\");\n"
                                            "  const char* bash = \"printf '%s' x\";\n}\n"),
        CONFIG_TABLE: ('    ConfigFile{"/.zshenv", true, U::profile, F::shell, true, k_zsh},\n'
                       '    ConfigFile{"/etc/profile.d/*.sh", false, U::profile, F::shell, true, k_x},\n'
                       '    ConfigFile{"/etc/nccl.conf", false, U::nccl, F::nccl, true, k_nccl},\n'
                       '    ConfigFile{"/etc/docker/daemon.json", false, U::docker_daemon, F::json, false, k},\n'),
        os.path.join("src", "collect", "p.cpp"): ('auto a = home + "/.zshenv";\n// "/etc/nccl.conf" in a comment\n'
                                                 'auto b = "/etc/profile.d/x.sh";\nauto c = "/etc/profile.dx";\n'
                                                 'auto d = {"etc/nccl.conf"};\n'
                                                 'auto e = "/etc/docker/daemon.json";\n'),
        os.path.join("fixes", "lib.bash"): "# .zshenv in a comment\nfor n in .zshenv; do :; done\ncp /etc/docker/daemon.json x\n",
        os.path.join("src", "collect", "q.cpp"): ('CommandSpec spec{"dkms-status", {"dkms"}};\n'
                                                 'auto r = view.run({\n    "nvidia-smi-L", {"nvidia-smi"}});\n'
                                                 'CommandSpec t{"python-env@" + p, {p}};\n'
                                                 'CommandSpec u = keyed_command_spec(KeyedCommand::x, t);\n'),
        COMMAND_TABLE: '    {KeyedCommand::rocminfo, "rocminfo", {"rocminfo"}},\n',
        # Not breaches: the signal path's write(2), stdout, a comment.
        os.path.join("src", "system", "lifecycle.cpp"): "void s() { ::write(STDERR_FILENO, \"a\", 1); }\n",
        os.path.join("src", "util", "u.cpp"): "// fprintf(stderr, ...) is gone\nvoid u() { fputs(s, stdout); }\n",
    }
    expected = {"src/app/a.cpp:2", "src/app/a.cpp:4", "src/app/a.cpp:5", "src/app/a.cpp:6", "src/app/a.cpp:7",
                "checks/c.cpp:1", "checks/d.cpp:2", "checks/d.cpp:4", "checks/d.cpp:6",
                "src/collect/p.cpp:1", "src/collect/p.cpp:3", "src/collect/q.cpp:1", "src/collect/q.cpp:2", "src/collect/p.cpp:5", "src/collect/p.cpp:6", "fixes/lib.bash:2", "src/fix/b.cpp:1", "src/fix/b.cpp:2", "src/fix/e.cpp:2", "src/fix/e.cpp:3"}
    with tempfile.TemporaryDirectory() as root:
        for rel, text in planted.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        found = (layer_breaches(root) + stderr_breaches(root) + engine_output_breaches(root) +
                 check_include_breaches(root) + config_copy_breaches(root) + command_copy_breaches(root))
        for folder in ("src", "checks"):
            found += machine_path_breaches(root, folder)
    reported = {":".join(b.split(":")[:2]) for b in found}
    if reported != expected:
        print(f"self-test: reported {sorted(reported)}, expected {sorted(expected)}")
        return 1
    print(f"self-test: the {len(expected)} planted breaches are reported, the exceptions are not")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1]
    breaches = (layer_breaches(root) + stderr_breaches(root) + engine_output_breaches(root) +
                check_include_breaches(root) + config_copy_breaches(root) + command_copy_breaches(root))
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
