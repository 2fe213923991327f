#!/usr/bin/env python3
"""Seeds for the snapshot fuzz targets (fuzz/snapshot_targets.hpp), written at run time by fuzz/run_all.sh so
that no binary archive is kept in the repository: the JSON files of the test machines, hostile JSON, and
hostile archives (every trick a bundle could play on the unpacker). docs/fuzzing.md.

    fuzz/make_snapshot_seeds.py OUT_DIR      # writes OUT_DIR/<target>/<seed>
"""
import bz2
import glob
import gzip
import io
import lzma
import os
import sys
import tarfile

here = os.path.dirname(os.path.abspath(__file__))
machines = os.path.join(here, "..", "tests", "machines")
out = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)
MAX = 65536  # run_all.sh's -max_len


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX:
        return
    folder = os.path.join(out, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# The snapshot files of the test machines, each to its reader, and all to the JSON parser.
for file, target in [("manifest.json", "snapshot_manifest"), ("env.json", "snapshot_env"),
                     ("identity.json", "snapshot_identity"), ("stat.json", "snapshot_stat"),
                     ("commands.json", "snapshot_commands")]:
    for path in sorted(glob.glob(os.path.join(machines, "*", "snapshot", file))):
        machine = path.split(os.sep)[-3]
        data = open(path, "rb").read()
        write(target, machine, data)
        write("json_value", machine + "-" + file, data)

hostile_json = {
    "deep-256": "[" * 256 + "]" * 256,
    "deep-257": "[" * 257 + "]" * 257,
    "brackets-in-string": '{"PS1": "' + "[" * 300 + '"}',
    "duplicates": '{"a": 1, "b": 2, "a": {"a": [1, {"a": 3}]}, "b": null}',
    "numbers": '[0, -0, -0.0, 1e308, 1e-308, 18446744073709551615, 18446744073709551616, -9223372036854775808]',
    "unicode": '["\\u0000", "\\ud83d\\ude00", "\\u001b[31m", "caf\\u00e9", "\\ud800"]',
    "many-keys": "{" + ",".join('"k%d": %d' % (i, i) for i in range(3000)) + "}",
    "stat-entries": '{"/dev/kfd": {"type": "char", "mode": "0660", "uid": 0, "gid": 993, "group": "render"},'
                    ' "/dev/x": {"type": "fifo", "mode": "7777", "uid": -1, "gid": 99999999999}}',
    "commands": '[{"key": "k", "argv": ["a"], "found": false, "exit": 99999999999, "stdout": "cmd/0-k.out",'
                ' "stderr": "../x"}, {"key": ""}, {"argv": []}]',
}
for name, data in hostile_json.items():
    write("json_value", name, data)
for target in ["snapshot_manifest", "snapshot_env", "snapshot_identity", "snapshot_stat", "snapshot_commands"]:
    for name in ["duplicates", "commands", "stat-entries", "unicode"]:
        write(target, name, hostile_json[name])


# Archives: (name, members); a member is (name, kind, data, link).
def tar_bytes(members, fmt=tarfile.GNU_FORMAT, compress="gz"):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=fmt) as t:
        for name, kind, data, link in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = link or ""
            if kind == tarfile.REGTYPE:
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
            else:
                t.addfile(info)
    data = raw.getvalue()
    return {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress, "none": lambda d: d}[compress](data)


F, D, L, H = tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE
manifest = ("manifest.json", F, b'{"format": "gpudoctor-snapshot", "version": 1}', None)
archives = {
    "snapshot": [manifest, ("fs/", D, b"", None), ("fs/etc/os-release", F, b"ID=debian\n", None),
                 ("fs/sys/bus/pci/devices/0000:01:00.0", L, b"", "../../../devices/pci0000:00/0000:01:00.0")],
    "dotdot": [manifest, ("../escaped", F, b"x", None)],
    "dotdot-inner": [manifest, ("fs/a/../../../escaped", F, b"x", None)],
    "absolute": [manifest, ("/tmp/escaped", F, b"x", None)],
    "symlink-then-write": [manifest, ("fs", L, b"", "/tmp"), ("fs/escaped", F, b"x", None)],
    "symlink-dir-then-write": [manifest, ("d", L, b"", "../.."), ("d/escaped", F, b"x", None)],
    "hardlink": [manifest, ("fs/passwd", H, b"", "/etc/passwd")],
    "hardlink-inside": [manifest, ("fs/copy", H, b"", "manifest.json")],
    "fifo": [manifest, ("fs/fifo", tarfile.FIFOTYPE, b"", None)],
    "chardev": [manifest, ("fs/dev/null", tarfile.CHRTYPE, b"", None)],
    "blockdev": [manifest, ("fs/dev/sda", tarfile.BLKTYPE, b"", None)],
    "deep": [manifest, ("fs/" + "a/" * 200 + "f", F, b"x", None)],
    "long-name": [manifest, ("fs/" + "n" * 3000, F, b"x", None)],
    "long-link": [manifest, ("fs/l", L, b"", "t" * 5000)],
    "empty-link": [manifest, ("fs/l", L, b"", "")],
    "file-then-dir": [manifest, ("fs/x", F, b"x", None), ("fs/x", D, b"", None), ("fs/x/y", F, b"y", None)],
    "dir-then-file": [manifest, ("fs/x", D, b"", None), ("fs/x", F, b"x", None)],
    "same-file-twice": [manifest, ("fs/x", F, b"1", None), ("fs/x", F, b"2", None)],
    "link-then-file": [manifest, ("fs/x", L, b"", "y"), ("fs/x", F, b"x", None)],
    "link-loop": [manifest, ("fs/a", L, b"", "b"), ("fs/b", L, b"", "a"), ("fs/a/c", F, b"x", None)],
    "dot-prefix": [manifest, ("./fs/./etc/./x", F, b"x", None), (".", D, b"", None), ("./", D, b"", None)],
    "nul-name": [manifest, ("fs/a\x00b", F, b"x", None)],
    "odd-bytes": [manifest, ("fs/bad\udcff\udcfe", F, b"x", None), ("fs/new\nline", F, b"x", None)],
}
for name, members in archives.items():
    try:
        write("unpack_archive", name + ".tar.gz", tar_bytes(members))
    except (ValueError, UnicodeEncodeError):
        pass
for fmt_name, fmt in [("ustar", tarfile.USTAR_FORMAT), ("pax", tarfile.PAX_FORMAT)]:
    for name in ["snapshot", "symlink-then-write", "long-link"]:
        try:
            write("unpack_archive", "%s-%s.tar.gz" % (name, fmt_name), tar_bytes(archives[name], fmt))
        except ValueError:
            pass
for compress in ["bz2", "xz", "none"]:
    write("unpack_archive", "snapshot.tar." + compress, tar_bytes(archives["snapshot"], compress=compress))
snapshot = tar_bytes(archives["snapshot"])
write("unpack_archive", "truncated.tar.gz", snapshot[: len(snapshot) // 2])
# A member that declares more than it holds, and a gzip bomb (a few KB that expand to 64 MB of zeros).
raw = bytearray(tar_bytes([manifest, ("fs/x", F, b"abc", None)], compress="none"))
raw[512 + 124:512 + 135] = b"%011o" % (1 << 30)
write("unpack_archive", "size-lie.tar.gz", gzip.compress(bytes(raw)))
bomb = io.BytesIO()
with tarfile.open(fileobj=bomb, mode="w") as t:
    info = tarfile.TarInfo("fs/zeros")
    info.size = 64 << 20
    t.addfile(info, io.BytesIO(bytes(info.size)))
write("unpack_archive", "bomb.tar.gz", gzip.compress(bomb.getvalue(), 9))

# Link sets for the path walker: "/path -> target" lines, then the path to resolve.
walks = {
    "sysfs": "/sys/bus/pci/devices/x -> ../../../devices/pci0/x\n/sys/bus/pci/devices/x/driver\n",
    "absolute": "/a -> /b\n/b -> /c/../../d\n/a/x\n",
    "loop": "/a -> b\n/b -> a\n/a/x\n",
    "dotdot": "/a -> ../../../../..\n/a/etc/passwd\n",
    "long": "/a -> " + "x/" * 3000 + "\n/a/y\n",
}
for name, data in walks.items():
    write("path_walk", name, data)
