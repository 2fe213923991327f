#!/usr/bin/env python3
"""Hostile snapshots for the security suite: a copy of a fixture snapshot whose string fields carry shell
syntax, quotes, line breaks, terminal escape sequences and invalid UTF-8.

    hostile_snapshot.py SRC DST [--classes env,identity,...]   write DST, a hostile copy of snapshot SRC
    hostile_snapshot.py --list-classes                         the classes, one a line
    hostile_snapshot.py --payload [full|line]                  the hostile string itself (bytes, no newline)

Each class poisons one kind of field, so that a test can also see what a single kind reaches (a snapshot
poisoned everywhere is mostly refused early: an unknown OS plans nothing). `all` is every class at once.
Every shell payload runs `touch CANARY` (a relative path: run what you test in an empty folder and look for
CANARY there). Also importable: `payload()`, `make(src, dst, classes)`.
"""

import argparse
import json
import os
import re
import shutil
import sys

# Everything that ends a word, a quote, a command or a line in bash, a here-document terminator, gpudoctor's
# own placeholder syntax, printf formats, then what a terminal obeys: ESC[2J (clear), a colour, OSC 52 (set
# the clipboard), BEL, BS, CSI as one C1 code point (U+009B) and a right-to-left override (U+202E).
FULL = ("'\"$(touch CANARY)`touch CANARY`;touch CANARY;|touch CANARY&&touch CANARY\\"
        "\ntouch CANARY\r\ntouch CANARY #\nLIST\nCONF\ntouch CANARY\n"
        "{{user}}{{!user}}%s%n${IFS}"
        "\x1b[2J\x1b[5;31m\x1b]52;c;Q0FOQVJZ\x07\x08\u009b31m\u202e\x7f")
# For line-based files (os-release, dpkg status, profiles, file names read as lines): no line feed.
LINE = FULL.replace("\n", " ")
# Bytes that are not UTF-8 (a lone continuation byte, a truncated sequence, an overlong NUL), for files.
INVALID_UTF8 = b"\xff\xfe\x80\xc3(\xc0\x80"

CLASSES = ["env", "identity", "os", "osid", "kernel", "pci", "dpkg", "rpm", "opt", "profile", "home",
           "sources", "cmd"]

# Variables the checks and the planner read by name; each is added (when absent) with a hostile value.
JUDGED_VARIABLES = ["SUDO_USER", "VIRTUAL_ENV", "CONDA_PREFIX", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                    "ROCR_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION", "NCCL_SOCKET_IFNAME", "NCCL_P2P_DISABLE",
                    "NCCL_IB_DISABLE", "NCCL_DEBUG", "CUDA_HOME", "ROCM_PATH", "LD_LIBRARY_PATH",
                    "PYTORCH_ROCM_ARCH", "PYENV_VERSION"]


def payload(kind="full"):
    return FULL if kind == "full" else LINE


def _read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)


def _append_bytes(path, data):
    with open(path, "ab") as f:
        f.write(data)


def _fs(dst, path):
    return os.path.join(dst, "fs", path.lstrip("/"))


def _files(dst):
    for root, dirs, files in os.walk(dst):
        for name in files + dirs:
            yield os.path.join(root, name)


def _env(dst):
    path = os.path.join(dst, "env.json")
    env = _read_json(path)
    env = {k: v + FULL for k, v in env.items()}
    for name in JUDGED_VARIABLES:
        env.setdefault(name, "x" + FULL)
    env["GD_HOSTILE_NAME" + FULL] = FULL  # a name no shell would accept, which a JSON file can still hold
    _write_json(path, env)


def _identity(dst):
    path = os.path.join(dst, "identity.json")
    ident = _read_json(path)
    for key in ("user", "home", "hostname"):
        ident[key] = ident.get(key, "") + FULL
    ident["groups"] = [g + FULL for g in ident.get("groups", [])] + [FULL]
    _write_json(path, ident)


def _os_release(dst, keys):
    for rel in ("/etc/os-release", "/usr/lib/os-release"):
        path = _fs(dst, rel)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        out = []
        for line in lines:
            m = re.match(rb'^([A-Z_]+)=("?)(.*?)("?)$', line)
            if m and m.group(1).decode() in keys:
                line = m.group(1) + b"=" + m.group(2) + m.group(3) + LINE.encode() + INVALID_UTF8 + m.group(4)
            out.append(line)
        with open(path, "wb") as f:
            f.write(b"\n".join(out))


def _kernel(dst):
    for rel in ("/proc/sys/kernel/osrelease", "/proc/sys/kernel/hostname", "/proc/cmdline"):
        path = _fs(dst, rel)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                text = f.read().rstrip(b"\n")
            with open(path, "wb") as f:
                f.write(text + FULL.encode() + INVALID_UTF8 + b"\n")


def _pci(dst):
    for path in _files(_fs(dst, "/sys/devices")):
        if os.path.basename(path) == "driver" and os.path.islink(path):
            target = os.readlink(path) + FULL
            os.unlink(path)
            os.symlink(target, path)


def _dpkg(dst):
    path = _fs(dst, "/var/lib/dpkg/status")
    if not os.path.isfile(path):
        return
    with open(path, "rb") as f:
        text = f.read()
    text = re.sub(rb"(?m)^(Version: .*)$", lambda m: m.group(1) + LINE.encode(), text)
    hostile = ("\n\nPackage: rocm-hostile{0}\nStatus: install ok installed\nArchitecture: amd64\n"
               "Version: 6.0.2{0}\nDescription: {0}\n\n"
               "Package: cuda-hostile{0}\nStatus: deinstall ok config-files\nArchitecture: amd64\n"
               "Version: 12.4{0}\n").format(LINE)
    with open(path, "wb") as f:
        f.write(text.rstrip(b"\n") + hostile.encode())


def _rpm(dst):
    for entry in _commands(dst):
        if entry.get("key") == "rpm-qa" and entry.get("stdout"):
            _append_bytes(os.path.join(dst, entry["stdout"]),
                          ("rocm-hostile{0}-6.0.2-1.el9.x86_64\ncuda-hostile-12.4{0}-1.x86_64\n"
                           .format(LINE)).encode())


def _opt(dst):
    rocm = _fs(dst, "/opt/rocm-6.9.9" + FULL)
    os.makedirs(os.path.join(rocm, ".info"), exist_ok=True)
    with open(os.path.join(rocm, ".info", "version"), "w", encoding="utf-8") as f:
        f.write("6.9.9-99" + LINE + "\n")
    cuda = _fs(dst, "/usr/local/cuda-12.9" + FULL)
    os.makedirs(os.path.join(cuda, "bin"), exist_ok=True)
    with open(os.path.join(cuda, "version.json"), "w", encoding="utf-8") as f:
        json.dump({"cuda": {"name": "CUDA SDK" + FULL, "version": "12.9.0" + FULL}}, f)


def _profile(dst):
    home = _read_json(os.path.join(dst, "identity.json")).get("home", "/root")
    lines = ("\n# gpudoctor hostile profile\n"
             "export ROCM_PATH=/opt/rocm{0}\n"
             "export PATH=\"/opt/rocm-6.0.2/bin{0}:$PATH\"\n"
             "export LD_LIBRARY_PATH=/usr/local/cuda-12.4/lib64{0}\n"
             "export HSA_OVERRIDE_GFX_VERSION=11.0.0{0}\n"
             "export CUDA_VISIBLE_DEVICES={0}\n"
             "export NCCL_SOCKET_IFNAME={0}; export GITHUB_TOKEN={0}\n").format(LINE).encode()
    for rel in (home + "/.bashrc", home + "/.profile", "/etc/profile.d/rocm" + LINE + ".sh",
                "/etc/environment"):
        path = _fs(dst, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _append_bytes(path, lines)


def _replace_strings(value, old, new, skip_keys=()):
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_replace_strings(v, old, new, skip_keys) for v in value]
    if isinstance(value, dict):
        return {_replace_strings(k, old, new): v if k in skip_keys else _replace_strings(v, old, new, skip_keys)
                for k, v in value.items()}
    return value


def _home(dst):
    """Renames the user consistently: identity, environment, the home folder, every path and command key."""
    ident = _read_json(os.path.join(dst, "identity.json"))
    user, home = ident.get("user", ""), ident.get("home", "")
    if not user or not home.endswith("/" + user):
        return
    new_user = user + LINE
    new_home = home[: -len(user)] + new_user
    old_dir, new_dir = _fs(dst, home), _fs(dst, new_home)
    if os.path.isdir(old_dir):
        os.rename(old_dir, new_dir)
    for path in list(_files(dst)):
        if os.path.islink(path):
            target = os.readlink(path)
            if home in target:
                os.unlink(path)
                os.symlink(target.replace(home, new_home), path)
        elif os.path.isfile(path) and not path.endswith(".json"):
            with open(path, "rb") as f:
                data = f.read()
            if home.encode() in data:
                with open(path, "wb") as f:
                    f.write(data.replace(home.encode(), new_home.encode()))
    for name in ("env.json", "identity.json", "stat.json", "commands.json"):
        path = os.path.join(dst, name)
        if os.path.isfile(path):
            value = _replace_strings(_read_json(path), home, new_home, skip_keys=("stdout", "stderr"))
            if name == "identity.json":
                value["user"] = new_user
            if name == "env.json":
                for key in ("USER", "LOGNAME", "SUDO_USER"):
                    if value.get(key) == user:
                        value[key] = new_user
            _write_json(path, value)


def _sources(dst):
    apt = _fs(dst, "/etc/apt/sources.list.d/rocm" + LINE + ".list")
    os.makedirs(os.path.dirname(apt), exist_ok=True)
    with open(apt, "w", encoding="utf-8") as f:
        f.write("deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.0.2 focal main\n"
                "deb https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2004/x86_64/ /\n"
                "deb https://repo.radeon.com/rocm/apt/6.0.2{0} focal{0} main\n".format(LINE))
    yum = _fs(dst, "/etc/yum.repos.d/rocm" + LINE + ".repo")
    os.makedirs(os.path.dirname(yum), exist_ok=True)
    with open(yum, "w", encoding="utf-8") as f:
        f.write("[rocm{0}]\nname=ROCm{0}\nbaseurl=https://repo.radeon.com/rocm/rhel9/6.0.2/main{0}\n"
                "enabled=1\n".format(LINE))


def _commands(dst):
    path = os.path.join(dst, "commands.json")
    return _read_json(path) if os.path.isfile(path) else []


def _cmd(dst):
    for entry in _commands(dst):
        for stream in ("stdout", "stderr"):
            rel = entry.get(stream)
            if not rel or entry.get("key", "").startswith("python-env@"):
                continue  # the python paths are poisoned by `home`; here they would only break the lookup
            path = os.path.join(dst, rel)
            if not os.path.isfile(path):
                continue
            if path.endswith(".xml"):
                with open(path, "rb") as f:
                    data = f.read()
                data = re.sub(rb"(<(product_name|driver_version|serial|uuid)>)([^<]*)(</)",
                              lambda m: m.group(1) + m.group(3) + LINE.encode() + m.group(4), data)
                with open(path, "wb") as f:
                    f.write(data)
            else:
                _append_bytes(path, (FULL + "\n").encode() + INVALID_UTF8 + b"\n")


MUTATORS = {
    "env": _env,
    "identity": _identity,
    "os": lambda d: _os_release(d, {"NAME", "PRETTY_NAME", "VERSION"}),
    "osid": lambda d: _os_release(d, {"ID", "ID_LIKE", "VERSION_ID", "VERSION_CODENAME", "UBUNTU_CODENAME"}),
    "kernel": _kernel,
    "pci": _pci,
    "dpkg": _dpkg,
    "rpm": _rpm,
    "opt": _opt,
    "profile": _profile,
    "home": _home,
    "sources": _sources,
    "cmd": _cmd,
}


def make(src, dst, classes):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)
    # `home` renames paths the others name, so it goes first; `identity` last (it poisons the home folder).
    order = ["home"] + [c for c in CLASSES if c not in ("home", "identity")] + ["identity"]
    for name in order:
        if name in classes:
            MUTATORS[name](dst)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", nargs="?")
    ap.add_argument("dst", nargs="?")
    ap.add_argument("--classes", default="all", help="comma-separated, or all (default)")
    ap.add_argument("--list-classes", action="store_true")
    ap.add_argument("--payload", nargs="?", const="full", choices=["full", "line"])
    args = ap.parse_args()
    if args.list_classes:
        print("\n".join(CLASSES))
        return 0
    if args.payload:
        sys.stdout.buffer.write(payload(args.payload).encode())
        return 0
    if not args.src or not args.dst:
        ap.error("SRC and DST are needed")
    classes = set(CLASSES) if args.classes == "all" else set(args.classes.split(","))
    unknown = classes - set(CLASSES)
    if unknown:
        ap.error("unknown classes: " + ", ".join(sorted(unknown)))
    make(args.src, args.dst, classes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
