"""Copies a snapshot folder and puts hostile content into every file its collectors read (fs/, cmd/).

usage: inflate_snapshot.py SRC DST VARIANT
  prepend   a 1 MB line first, `export HSA_AAAA...=1` (a name as long as a line: the profile parsers and the fix
            inventory's patterns meet it), then the file as it was
  nonl      the file, then a 1 MB line without a newline at the end (words, `=`, `:`, quotes, backslashes)
  nesting   100 KB of nesting characters, ((( [[[ {{{ <<< and quotes, never closed, first the kind the file
            starts with (so a JSON, XML or bracketed file's own parser goes 25,000 levels deep), then the file
  deep      the file, then all three of the above, last the line without a newline; and every environment value
            (env.json) as long as Linux lets one be (MAX_ARG_STRLEN: 128 KiB for NAME=value), the rest after a
            `:` (a list entry of its own); no live environment holds more, and replay refuses an env.json over
            16 MiB (docs/security.md, "Limits"). fs/sys/ is left as it was, so the
            GPUs are still recognised (a sysfs attribute with a second line is, rightly, not read as one) and
            fix and migrate go past "no GPU" into the inventory and the planner.
Symbolic links stay links (their targets are inflated where they are files of the snapshot). Prints how many
files (and environment values) it changed.
"""
import json, os, shutil, sys

MB = 1 << 20
src, dst, variant = sys.argv[1:4]
shutil.copytree(src, dst, symlinks=True)

export_line = b"export HSA_" + b"A" * MB + b"=1\n"
nonl = (b"key=value: 'quoted \"x\"' \\ " * (MB // 28 + 1))[:MB]
OPENERS = (b"[", b"{", b"<", b"(")


def nesting(data=b""):
    first = data.lstrip()[:1]
    kinds = sorted(OPENERS, key=lambda c: c != first)  # the file's own opener first, else "["
    return b"".join(c * (25 * 1024) for c in kinds) + b'"' * 1024 + b"'" * 1024 + b"\n"


def ended(data):
    return data if not data or data.endswith(b"\n") else data + b"\n"


def inflate(data):
    if variant == "prepend":
        return export_line + data
    if variant == "nonl":
        return ended(data) + nonl
    if variant == "nesting":
        return nesting(data) + data
    return ended(data) + export_line + nesting() + nonl  # deep


count = 0
for part in ("fs", "cmd"):
    for root, _, files in os.walk(os.path.join(dst, part)):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            if variant == "deep" and os.path.relpath(path, dst).startswith(os.path.join("fs", "sys") + os.sep):
                continue
            with open(path, "rb") as f:
                data = f.read()
            with open(path, "wb") as f:
                f.write(inflate(data))
            count += 1
env_path = os.path.join(dst, "env.json")
if variant == "deep" and os.path.exists(env_path):
    with open(env_path) as f:
        env = json.load(f)
    max_arg_strlen = 32 * 4096  # the kernel's bound on one environment string, NAME=value and its NUL
    for name in env:
        room = max_arg_strlen - len(name) - len(env[name]) - 3
        if room > 0:
            env[name] = env[name] + ":" + "B" * room
            count += 1
    with open(env_path, "w") as f:
        json.dump(env, f)
print(count)
