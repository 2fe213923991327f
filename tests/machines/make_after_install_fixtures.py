#!/usr/bin/env python3
"""Writes the fixtures of issue 13 ("what breaks after the install") under tests/machines/<name>/snapshot.

Each is built from a real capture of this project, edited as its README says: the NVIDIA ones from
tests/machines/nvidia-h200-real (a real `gpudoctor bundle` of an H200 machine), the AMD ones from
tests/machines/amd-mi210-healthy; kernel-log lines and nvidia-smi fields come from the public samples in
tests/data/realdata (the README of each fixture names them). Run from the repository root:

    tests/machines/make_after_install_fixtures.py        # rewrites the snapshots (README and expected.json stay)

then `cmake --build build` (a new fixture gets its own case), GPUDOCTOR_UPDATE_GOLDEN=1 build/tests/unittest
-tc='machine*' and review expected.json and tally.json.
"""
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
H200 = os.path.join(HERE, "nvidia-h200-real", "snapshot")
MI210 = os.path.join(HERE, "amd-mi210-healthy", "snapshot")
REALDATA = os.path.join(ROOT, "tests", "data", "realdata")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def realdata(name):
    return read(os.path.join(REALDATA, name))


class Snapshot:
    def __init__(self, name, note):
        self.dir = os.path.join(HERE, name, "snapshot")
        if os.path.exists(self.dir):
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        self.commands = []
        self.stat = {}
        self.json("manifest.json", {"format": "gpudoctor-snapshot", "version": 1, "created": "2026-12-01T00:00:00Z",
                                    "tool": "gpudoctor 0.1.0", "origin": "fixture", "note": note})

    def json(self, rel, obj):
        self.write(rel, json.dumps(obj, indent=2) + "\n")

    def write(self, rel, content):
        path = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)

    def fs(self, path, content):
        self.write("fs" + path, content)

    def link(self, path, target):
        full = os.path.join(self.dir, "fs" + path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        os.symlink(target, full)

    def copy_fs(self, base, paths):
        for p in paths:
            src = os.path.join(base, "fs" + p)
            dst = os.path.join(self.dir, "fs" + p)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if os.path.isdir(src) and not os.path.islink(src):
                shutil.copytree(src, dst, symlinks=True)
            else:
                shutil.copy2(src, dst)  # a link (os-release) is copied as the file it names

    def command(self, key, argv, out="", exit_code=0, err=""):
        entry = {"key": key, "argv": argv, "found": True, "exit": exit_code, "timed_out": False,
                 "duration_ms": 12, "timeout_ms": 5000}
        stem = f"{len(self.commands) + 1}-{re.sub(r'[^A-Za-z0-9_.-]', '_', key)}"
        if out:
            self.write(f"cmd/{stem}.out", out)
            entry["stdout"] = f"cmd/{stem}.out"
        if err:
            self.write(f"cmd/{stem}.err", err)
            entry["stderr"] = f"cmd/{stem}.err"
        self.commands.append(entry)

    def finish(self, identity, env):
        self.json("identity.json", identity)
        self.json("env.json", env)
        self.json("stat.json", self.stat)
        self.json("commands.json", self.commands)
        for folder, dirs, files in os.walk(self.dir):  # git keeps no empty folder (docs/snapshot.md)
            if not dirs and not files:
                open(os.path.join(folder, ".gpudoctor-keep"), "w").close()


ROOT_IDENTITY = {"user": "root", "uid": 0, "gid": 0, "groups": ["root"], "gids": [0], "home": "/root",
                 "hostname": "hgx07"}
PATH_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
            "LANG": "C.UTF-8"}

# ---- NVIDIA, from the real H200 capture -------------------------------------------------------------------

H200_GPU_FILES = ["class", "vendor", "device", "subsystem_vendor", "subsystem_device", "revision", "numa_node",
                  "current_link_speed", "current_link_width", "max_link_speed", "max_link_width"]
# HGX baseboards: eight GPUs behind their own PCIe switch ports, four NVSwitches (bus numbers as on HGX H100/H200
# hosts; the H200 capture is a VM with one GPU at 0000:00:06.0).
HGX_GPUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
            "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]
HGX_SWITCHES = ["0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"]


def nvidia_base(s, gpus, device_id="0x2335", driver_version=None, proc_version=None, restrict="0"):
    """os-release, kernel, modules, the GPUs in sysfs (files of the H200 capture), /dev nodes."""
    s.copy_fs(H200, ["/etc/os-release", "/proc/cmdline", "/proc/modules", "/proc/sys/kernel/osrelease",
                     "/proc/sys/kernel/arch", "/proc/driver/nvidia/version", "/sys/module/nvidia/version"])
    if proc_version is not None:
        s.fs("/proc/driver/nvidia/version", proc_version)
    if driver_version is not None:
        s.fs("/sys/module/nvidia/version", driver_version + "\n")
    s.fs("/proc/sys/kernel/dmesg_restrict", restrict + "\n")
    base_gpu = os.path.join(H200, "fs/sys/devices/pci0000:00/0000:00:06.0")
    for i, bdf in enumerate(gpus):
        bus = bdf[5:7]
        root = f"pci0000:{bus}" if len(gpus) == 1 else f"pci0000:{int(bus, 16) & 0xf0:02x}"
        port = f"0000:{int(bus, 16) & 0xf0:02x}:01.0" if len(gpus) > 1 else None
        dev = f"/sys/devices/{root}/" + (f"{port}/" if port else "") + bdf
        for name in H200_GPU_FILES:
            content = read(os.path.join(base_gpu, name))
            if name == "device":
                content = device_id + "\n"
            s.fs(f"{dev}/{name}", content)
        s.link(f"{dev}/driver", ("../" * (4 if port else 3)) + "bus/pci/drivers/nvidia")
        s.link(f"/sys/bus/pci/devices/{bdf}", "../../.." + dev[len("/sys"):])
        s.stat[f"/dev/nvidia{i}"] = {"type": "char", "mode": "0666", "uid": 0, "gid": 0, "group": "root"}
    for node in ["/dev/nvidiactl", "/dev/nvidia-uvm"]:
        s.stat[node] = {"type": "char", "mode": "0666", "uid": 0, "gid": 0, "group": "root"}


def nvswitches(s, bdfs):
    for bdf in bdfs:
        dev = f"/sys/devices/pci0000:00/0000:00:03.0/{bdf}"
        for name, value in [("class", "0x068000"), ("vendor", "0x10de"), ("device", "0x22a3"),
                            ("subsystem_vendor", "0x10de"), ("subsystem_device", "0x1796"), ("revision", "0xa1")]:
            s.fs(f"{dev}/{name}", value + "\n")
        s.link(f"{dev}/driver", "../../../../bus/pci/drivers/nvidia-nvswitch")
        s.link(f"/sys/bus/pci/devices/{bdf}", "../../../devices/pci0000:00/0000:00:03.0/" + bdf)


def smi_xml(gpus, edit=lambda i, g: g):
    """The H200 capture's nvidia-smi -q -x, its <gpu> repeated per GPU with the ids changed, then `edit`ed."""
    xml = read(os.path.join(H200, "cmd/6-nvidia-smi-xml.out"))
    head, rest = xml.split("\t<gpu id=", 1)
    gpu, tail = ("\t<gpu id=" + rest).split("\t</gpu>\n", 1)
    gpu += "\t</gpu>\n"
    out = []
    for i, bdf in enumerate(gpus):
        g = gpu.replace("00000000:00:06.0", "0000" + bdf.upper())
        g = g.replace("<pci_bus>00</pci_bus>", f"<pci_bus>{bdf[5:7].upper()}</pci_bus>")
        g = g.replace("<minor_number>0</minor_number>", f"<minor_number>{i}</minor_number>")
        g = g.replace("GPU-d866a34b-e82e-1a83-297a-27e16e24fd5", f"GPU-d866a34b-e82e-1a83-297a-27e16e24fd{i}")
        out.append(edit(i, g))
    head = head.replace("<attached_gpus>1</attached_gpus>", f"<attached_gpus>{len(gpus)}</attached_gpus>")
    return head + "".join(out) + tail


def set_tag(g, path, value):
    """Replaces the text of the element at `path` (a list of tag names) in one <gpu> element."""
    pattern = "".join(rf"<{t}>(?:(?!</{t}>).)*?" for t in path[:-1]) + rf"<{path[-1]}>[^<]*</{path[-1]}>"
    m = re.search(pattern, g, re.S)
    assert m, path
    seg = m.group(0)
    seg = re.sub(rf"<{path[-1]}>[^<]*</{path[-1]}>", f"<{path[-1]}>{value}</{path[-1]}>", seg)
    return g[:m.start()] + seg + g[m.end():]


def dpkg(packages):
    """(name, version) or (name, version, maintainer, depends) per package."""
    paragraphs = []
    for name, version, *more in packages:
        maintainer = f"Maintainer: {more[0]}\n" if more else ""
        depends = f"Depends: {more[1]}\n" if len(more) > 1 and more[1] else ""
        paragraphs.append(f"Package: {name}\nStatus: install ok installed\nPriority: optional\nSection: misc\n"
                          f"{maintainer}Architecture: amd64\nVersion: {version}\n{depends}Description: {name}\n")
    return "\n".join(paragraphs)


DRIVER = "580.159.04"
DRIVER_PACKAGES = [("libnvidia-compute-580", DRIVER + "-0ubuntu0.24.04.1")]


MACHINE_ID = "0b2c5a7e9f1d4c3ab8e6d5f4a3b2c1d0"


def journal_line(time, msg):
    return f"{time} hgx07 kernel: {msg}\n"


def hgx(name, note, fabric_state, packages, service):
    s = Snapshot(name, note)
    nvidia_base(s, HGX_GPUS)
    nvswitches(s, HGX_SWITCHES)
    s.fs("/var/lib/dpkg/status", dpkg(DRIVER_PACKAGES + packages))

    def edit(i, g):
        g = set_tag(g, ["fabric", "state"], fabric_state)
        return g
    s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], smi_xml(HGX_GPUS, edit))
    s.command("dmesg", ["dmesg"], "".join(f"[    {5 + i}.000000] nvidia-nvswitch{i}: probe of "
                                            f"{bdf} succeeded\n" for i, bdf in enumerate(HGX_SWITCHES)))
    s.command("systemctl-fabricmanager", ["systemctl", "is-active", "nvidia-fabricmanager"], service + "\n",
              0 if service == "active" else 3)
    s.finish(ROOT_IDENTITY, PATH_ENV)


def h200_with_log(name, note, dmesg=None, previous=None, edit=None, identity=ROOT_IDENTITY, restrict="0",
                  dmesg_run=None):
    s = Snapshot(name, note)
    nvidia_base(s, ["0000:00:06.0"], restrict=restrict)
    s.fs("/var/lib/dpkg/status", dpkg(DRIVER_PACKAGES))
    s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], smi_xml(["0000:00:06.0"], edit or (lambda i, g: g)))
    if dmesg_run:
        dmesg_run(s)
    elif dmesg is not None:
        s.command("dmesg", ["dmesg"], dmesg)
    if previous is not None:  # a persistent journal keeps the previous boot
        s.stat["/var/log/journal"] = {"type": "dir", "mode": "2755", "uid": 0, "gid": 101, "group": "systemd-journal"}
        # journald keeps a persistent journal's files in a folder named by the machine id
        s.stat["/var/log/journal/" + MACHINE_ID] = {"type": "dir", "mode": "2755", "uid": 0, "gid": 101,
                                                   "group": "systemd-journal"}
        s.command("journal-kernel-previous", ["journalctl", "-k", "-b", "-1", "-o", "short-iso", "--no-pager"],
                  previous)
    env = dict(PATH_ENV)
    env["HOME"] = identity["home"]
    s.finish(identity, env)
    return s


BOOT = "[    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) (x86_64-linux-gnu-gcc-13)\n"


def main():
    # 1-2. HGX H200 without the Fabric Manager, and with one of another version whose service failed.
    hgx("nvidia-hgx-h200-no-fabric-manager",
        "HGX H200: 8 GPUs, 4 NVSwitches, no Fabric Manager (from nvidia-h200-real)", "Not Started", [], "inactive")
    hgx("nvidia-hgx-h200-fabric-manager-mismatch",
        "HGX H200: Fabric Manager 580.95.05 beside driver 580.159.04 (from nvidia-h200-real)", "Not Started",
        [("nvidia-fabricmanager-580", "580.95.05-0ubuntu0.24.04.2")], "failed")

    # 3. A Blackwell laptop GPU with the proprietary module: the real dmesg of an RTX 5090 Laptop GPU.
    s = Snapshot("nvidia-rtx5090-laptop-proprietary",
                 "RTX 5090 Laptop GPU (10de:2c58) with the proprietary 580.105.08 module (from nvidia-h200-real)")
    proc = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.105.08  Wed Oct 29 23:15:11 UTC 2025\n"
            "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04) \n")
    nvidia_base(s, ["0000:02:00.0"], device_id="0x2c58", driver_version="580.105.08", proc_version=proc)
    s.fs("/var/lib/dpkg/status", dpkg([("libnvidia-compute-580", "580.105.08-0ubuntu0.24.04.1"),
                                       ("nvidia-dkms-580", "580.105.08-0ubuntu0.24.04.1")]))
    s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], "No devices were found\n", 6)
    s.command("dmesg", ["dmesg"], realdata("dmesg-nvrm-open-modules-required-rtx5090-laptop-1.txt"))
    s.finish(dict(ROOT_IDENTITY, hostname="laptop"), PATH_ENV)

    # 4-5. Xid 79: this boot (the GPU answers no more), and in the previous boot (it is back after the reboot).
    fallen = realdata("dmesg-nvrm-fallen-off-bus-no-xid-1.txt").replace("0000:b3:00.0", "0000:00:06.0") \
        .replace("10de:26b5", "10de:2335")
    xid79 = "[ 1843.308101] NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', name=<unknown>, GPU has fallen off " \
            "the bus.\n"
    h200_with_log("nvidia-h200-xid79-this-boot", "H200: Xid 79 in this boot's log (from nvidia-h200-real)",
                  dmesg=BOOT + xid79 + fallen)
    previous = "".join(journal_line("2026-11-30T22:14:03+0000", m) for m in [
        "NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
        "NVRM: The NVIDIA GPU 0000:00:06.0",
        "NVRM: (PCI ID: 10de:2335) installed in this system has",
        "NVRM: fallen off the bus and is not responding to commands."])
    h200_with_log("nvidia-h200-xid79-previous-boot",
                  "H200: Xid 79 before the last reboot, healthy since (from nvidia-h200-real)",
                  dmesg=BOOT, previous=previous)

    # 6. Xid 48, 63 and 94 with the remap pending (nvidia-smi fields per the A100 remap-pending excerpt).
    mem = (BOOT +
           "[ 5121.431275] NVRM: Xid (PCI:0000:00:06): 48, pid=22841, name=python3, An uncorrectable double bit "
           "error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.\n"
           "[ 5121.431403] NVRM: Xid (PCI:0000:00:06): 94, pid=22841, name=python3, Contained: CE User Channel "
           "(0x9). RST: No, D-RST: No\n"
           "[ 5121.433012] NVRM: Xid (PCI:0000:00:06): 63, pid=1896, Row Remapper: New row marked for remapping, "
           "reset gpu to activate.\n")

    def pending(i, g):
        g = set_tag(g, ["ecc_errors", "volatile", "dram_uncorrectable"], "1")
        g = set_tag(g, ["ecc_errors", "aggregate", "dram_uncorrectable"], "1")
        g = set_tag(g, ["remapped_rows", "remapped_row_unc"], "1")
        g = set_tag(g, ["remapped_rows", "remapped_row_pending"], "Yes")
        return g
    h200_with_log("nvidia-h200-xid48-63-94-remap-pending",
                  "H200: Xid 48, 94 and 63, a row remap pending (from nvidia-h200-real)", dmesg=mem, edit=pending)

    # 7. A healthy busy server whose log holds only application Xids 13, 31 and 43.
    app = BOOT
    for t, pid in [(3021.5, 4410), (3055.2, 4410), (7210.0, 5120)]:
        app += (f"[ {t:.6f}] NVRM: Xid (PCI:0000:00:06): 13, pid={pid}, name=python3, Graphics Exception: "
                f"ESR 0x514730=0x2000e 0x514734=0x0 0x51472c=0x1070e11 0x514738=0x4\n"
                f"[ {t + 0.000112:.6f}] NVRM: Xid (PCI:0000:00:06): 43, pid={pid}, name=python3, Ch 00000008\n")
    app += ("[ 9012.000100] NVRM: Xid (PCI:0000:00:06): 31, pid=6021, name=train.py, Ch 0000000a, intr 00000000. "
            "MMU Fault: ENGINE GRAPHICS GPC0 GPCCLIENT_T1_0 faulted @ 0x7f2a_1c000000. Fault is of type "
            "FAULT_PDE ACCESS_TYPE_VIRT_READ\n")
    h200_with_log("nvidia-h200-busy-application-xids",
                  "H200: only application Xids 13, 31 and 43 in the log (from nvidia-h200-real)", dmesg=app)

    # 8. A user outside adm and systemd-journal on Ubuntu (dmesg_restrict=1): no kernel log.
    user = {"user": "ana", "uid": 1000, "gid": 1000, "groups": ["ana"], "gids": [1000], "home": "/home/ana",
            "hostname": "hgx07"}

    def refused(s):
        s.command("dmesg", ["journalctl", "-k", "-b", "0", "-o", "short-iso", "--no-pager"],
                  "-- No entries --\n", 0,
                  "Hint: You are currently not seeing messages from other users and the system.\n"
                  "      Users in groups 'adm', 'systemd-journal' can see all messages.\n"
                  "      Pass -q to turn off this notice.\n")
    h200_with_log("nvidia-h200-user-without-kernel-log",
                  "H200: user ana without the kernel log (from nvidia-h200-real)", identity=user, restrict="1",
                  dmesg_run=refused)

    # 11. The A100 of stas00/ml-engineering's debugging notes, from its two real pastes: the Xid 63 line and the
    # nvidia-smi -q excerpt of the same GPU (00000000:10:1C.0, remap pending), replayed through the text parser.
    s = Snapshot("nvidia-a100-remap-pending-text",
                 "A100-SXM4-80GB with a row remap pending, from real text pastes (from nvidia-h200-real)")
    proc = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  510.73.08  Thu May  5 23:41:26 UTC 2022\n"
    nvidia_base(s, ["0000:10:1c.0"], device_id="0x20b2", driver_version="510.73.08", proc_version=proc)
    s.fs("/var/lib/dpkg/status", dpkg([("libnvidia-compute-510", "510.73.08-0ubuntu1")]))
    s.command("nvidia-smi-q", ["nvidia-smi", "-q"], realdata("nvidia-smi-q-excerpt-a100-ecc-row-remap-pending-1.txt"))
    s.command("dmesg", ["dmesg"], BOOT + realdata("dmesg-nvrm-xid63-row-remap-1.txt"))
    s.finish(ROOT_IDENTITY, PATH_ENV)

    # 12. Issue 25 item 7's healthy neighbour: nvidia loaded unsigned (a tainting load, Secure Boot off) and
    # another module refused for its signature (the line of linux-surface/linux-surface#1219).
    h200_with_log("nvidia-h200-other-module-refused-healthy",
                  "H200: nvidia loaded with a tainting signature notice, another module refused (from "
                  "nvidia-h200-real)",
                  dmesg=BOOT + "[    2.567912] Loading of unsigned module is rejected\n"
                  "[    4.213372] nvidia: loading out-of-tree module taints kernel.\n"
                  "[    4.213380] nvidia: module verification failed: signature and/or required key missing - "
                  "tainting kernel\n")

    # 13-14. Issue 25 item 1, MIG: the real nvidia-smi -q -x of an A100-SXM4-80GB in MIG mode with four MIG
    # devices (telegraf's testdata), and the same GPU with MIG on and no MIG device (its <mig_devices> as
    # nvidia-smi prints an empty list), as gpu-burn#122 and Slurm's "MIG mode is enabled, but no MIG devices
    # were found" describe.
    a100 = realdata("nvidia-smi-q-x-a100-sxm4-80gb-mig-1.xml")
    a100_proc = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.54.03  Tue Jun  6 22:20:39 UTC 2023\n"
    for name, note, xml in [
            ("nvidia-a100-mig-instances-healthy",
             "A100-SXM4-80GB in MIG mode with four MIG devices (real nvidia-smi -q -x; from nvidia-h200-real)", a100),
            ("nvidia-a100-mig-no-instances",
             "A100-SXM4-80GB in MIG mode without MIG devices (from the real A100 XML and nvidia-h200-real)",
             re.sub(r"<mig_devices>.*</mig_devices>", "<mig_devices>\n            None\n        </mig_devices>", a100,
                    flags=re.S))]:
        s = Snapshot(name, note)
        nvidia_base(s, ["0000:01:00.0"], device_id="0x20b2", driver_version="535.54.03", proc_version=a100_proc)
        s.fs("/var/lib/dpkg/status", dpkg([("libnvidia-compute-535", "535.54.03-0ubuntu1")]))
        s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], xml)
        s.finish(ROOT_IDENTITY, PATH_ENV)

    # 15-16. Issue 25 item 2, BAR1: a Tesla T4 (BAR1 256 MiB of 15360 MiB, as telegraf's real tesla-t4.xml and
    # Mellanox/nv_peer_memory#101 report it) beside a ConnectX HCA, and the H200 of the capture (BAR1 256 GiB)
    # beside the same HCA.
    def t4(i, g):
        g = set_tag(g, ["product_name"], "Tesla T4")
        g = set_tag(g, ["fb_memory_usage", "total"], "15360 MiB")
        return set_tag(g, ["bar1_memory_usage", "total"], "256 MiB")
    for name, note, device, edit in [
            ("nvidia-t4-rdma-bar1-256m", "Tesla T4 with a 256 MiB BAR1 beside a ConnectX HCA (from nvidia-h200-real)",
             "0x1eb8", t4),
            ("nvidia-h200-rdma-large-bar-healthy", "H200 with its 256 GiB BAR1 beside a ConnectX HCA (from "
             "nvidia-h200-real)", "0x2335", lambda i, g: g)]:
        s = Snapshot(name, note)
        nvidia_base(s, ["0000:00:06.0"], device_id=device)
        s.fs("/var/lib/dpkg/status", dpkg(DRIVER_PACKAGES))
        s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], smi_xml(["0000:00:06.0"], edit))
        os.makedirs(os.path.join(s.dir, "fs/sys/class/infiniband/mlx5_0"))
        s.finish(ROOT_IDENTITY, PATH_ENV)

    # 17-18. Issue 25 item 6, NCCL's own choice of socket interface: the interfaces of Oneflow-Inc/oneflow#3586
    # (eno1 172.18.40.41, a docker veth veth25f2e72 with only its fe80:: address, docker0), and the same
    # machine without the container's veth.
    oneflow_addr = (
        "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
        "2: eno1    inet 172.18.40.41/16 brd 172.18.255.255 scope global eno1\\       valid_lft forever "
        "preferred_lft forever\n"
        "3: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\\       valid_lft forever "
        "preferred_lft forever\n"
        "1: lo    inet6 ::1/128 scope host \\       valid_lft forever preferred_lft forever\n"
        "2: eno1    inet6 fe80::3eec:efff:fe4a:6b12/64 scope link \\       valid_lft forever preferred_lft forever\n"
        "3: docker0    inet6 fe80::42:9cff:fe1e:2b5a/64 scope link \\       valid_lft forever preferred_lft forever\n"
        "9: veth25f2e72    inet6 fe80::380d:bfff:fe5b:54d2/64 scope link \\       valid_lft forever preferred_lft "
        "forever\n")
    for name, note, veth in [
            ("nvidia-h200-nccl-default-veth", "H200 server whose NCCL default takes a docker veth beside eno1 "
             "(oneflow#3586's interfaces; from nvidia-h200-real)", True),
            ("nvidia-h200-nccl-default-eno1-healthy", "H200 server whose NCCL default takes eno1 (from "
             "nvidia-h200-real)", False)]:
        s = Snapshot(name, note)
        nvidia_base(s, ["0000:00:06.0"])
        s.fs("/var/lib/dpkg/status", dpkg(DRIVER_PACKAGES))
        s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], smi_xml(["0000:00:06.0"]))
        interfaces = [("lo", 772, "0x9", 1, 1, None, False), ("eno1", 1, "0x1003", 2, 2, "e1000e", False),
                      ("docker0", 1, "0x1003", 3, 3, None, True)]
        if veth:
            interfaces.append(("veth25f2e72", 1, "0x1003", 9, 8, None, False))
        for ifname, arp, flags, index, link, driver, bridge in interfaces:
            d = f"/sys/class/net/{ifname}"
            for f, v in [("type", arp), ("flags", flags), ("ifindex", index), ("iflink", link)]:
                s.fs(f"{d}/{f}", f"{v}\n")
            if driver:
                s.link(f"{d}/device", "../../../devices/pci0000:00/0000:00:1f.6")
                s.link("/sys/devices/pci0000:00/0000:00:1f.6/driver", f"../../../bus/pci/drivers/{driver}")
            if bridge:
                s.fs(f"{d}/bridge/stp_state", "0\n")
        addr = oneflow_addr if veth else "\n".join(l for l in oneflow_addr.split("\n") if "veth" not in l)
        s.command("ip-addr", ["ip", "-o", "addr", "show"], addr)
        s.finish(ROOT_IDENTITY, PATH_ENV)

    # 19-20. Issue 25 item 3, NVLink: the real `nvidia-smi nvlink -s` of seven V100-SXM2-32GB with six links
    # inactive (Azure/azhpc-diagnostics' nvlink.bad.out), and the same machine with every link active.
    nvlink_bad = read(os.path.join(ROOT, "tests", "data", "parse", "nvidia-smi-nvlink-s-v100-inactive-1.txt"))
    v100_uuids = re.findall(r"UUID: (GPU-[0-9a-f-]+)", nvlink_bad)

    def v100(i, g):
        g = set_tag(g, ["product_name"], "Tesla V100-SXM2-32GB")
        g = set_tag(g, ["fb_memory_usage", "total"], "32768 MiB")
        return re.sub(r"<uuid>[^<]*</uuid>", f"<uuid>{v100_uuids[i]}</uuid>", g, count=1)
    for name, note, nvlink in [
            ("nvidia-v100-nvlink-inactive", "7x V100-SXM2-32GB with six NVLinks inactive (real nvidia-smi nvlink -s; "
             "from nvidia-h200-real)", nvlink_bad),
            ("nvidia-v100-nvlink-healthy", "7x V100-SXM2-32GB with every NVLink active (from nvidia-h200-real)",
             nvlink_bad.replace("<inactive>", "25.781 GB/s"))]:
        s = Snapshot(name, note)
        # Volta runs on the proprietary flavour only (driver.module-flavour): its /proc line.
        nvidia_base(s, HGX_GPUS[:7], device_id="0x1db5", proc_version=(
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Nov 20 19:09:29 UTC 2025\n"
            "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04) \n"))
        s.fs("/var/lib/dpkg/status", dpkg(DRIVER_PACKAGES))
        s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], smi_xml(HGX_GPUS[:7], v100))
        s.command("nvidia-smi-nvlink-s", ["nvidia-smi", "nvlink", "-s"], nvlink)
        s.finish(ROOT_IDENTITY, PATH_ENV)

    # 22-23. Issue 25 items 3 and 9, NVLink error counts: `nvidia-smi nvlink -e` in the real form of the H100
    # sample in Stas Bekman's ML Engineering book (tests/data/parse/nvidia-smi-nvlink-e-h100-1.txt: 18 links,
    # "Replay/Recovery/CRC Errors"), on two H200s whose links all run at 26.562 GB/s, with the counts of the
    # report `check --history` kept an hour earlier in the same boot (the summary history-previous). One GPU's
    # link 5 counted 3 replay and 1 recovery errors since; the neighbour's counts did not grow but for 40 CRC
    # errors in the hour (far below DCGM's 100 a second).
    boot_id = "8a0b6d61-3c1e-4f57-9d3a-3f1b2c4d5e6f\n"

    def nvlink_text(i, counts):
        lines = [f"GPU {i}: NVIDIA H200 (UUID: GPU-d866a34b-e82e-1a83-297a-27e16e24fd{i}0)"]
        for link in range(18):
            if counts is None:
                lines.append(f"\t Link {link}: 26.562 GB/s")
                continue
            replay, recovery, crc = counts.get(link, (0, 0, 0))
            lines += [f"         Link {link}: Replay Errors: {replay}", f"         Link {link}: Recovery Errors: {recovery}",
                      f"         Link {link}: CRC Errors: {crc}", ""]
        return "\n".join(lines) + "\n"

    def history_summary(gpus, counts):
        return json.dumps({
            "report": "20261205T093000.000000Z-ok.json", "time": "2026-12-05T09:30:00Z",
            "read_at": "2026-12-05T10:30:00Z", "tool_version": "0.1.0", "boot_id": boot_id.strip(),
            "gpus": [{"bdf": "0000" + bdf.upper(), "volatile_uncorrectable": 0, "aggregate_uncorrectable": 0,
                      "volatile_correctable": 0, "aggregate_correctable": 0, "retired_pages_sbe": None,
                      "retired_pages_dbe": None,
                      "nvlink": [{"link": link, "replay": r, "recovery": c, "crc": crc}
                                 for link, (r, c, crc) in ((k, counts[i].get(k, (0, 0, 0))) for k in range(18))]}
                     for i, bdf in enumerate(gpus)],
            "events": []}, sort_keys=True) + "\n"
    before = [{2: (0, 0, 12)}, {5: (0, 0, 0)}]
    for name, note, now in [
            ("nvidia-h200-nvlink-errors-grown", "2x H200 whose GPU 1 link 5 counted 3 replay and 1 recovery "
             "errors since the report kept an hour earlier (nvlink -e in the form of a real H100 sample; from "
             "nvidia-h200-real)", [{2: (0, 0, 12)}, {5: (3, 1, 0)}]),
            ("nvidia-h200-nvlink-errors-steady-healthy", "2x H200 whose NVLink counts did not grow in the hour "
             "since the kept report but for 40 CRC errors (from nvidia-h200-real)", [{2: (0, 0, 52)}, {5: (0, 0, 0)}])]:
        s = Snapshot(name, note)
        gpus = HGX_GPUS[:2]
        nvidia_base(s, gpus)
        s.fs("/var/lib/dpkg/status", dpkg(DRIVER_PACKAGES))
        s.fs("/proc/sys/kernel/random/boot_id", boot_id)
        s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], smi_xml(gpus))
        s.command("nvidia-smi-nvlink-s", ["nvidia-smi", "nvlink", "-s"],
                  "".join(nvlink_text(i, None) for i in range(2)))
        s.command("nvidia-smi-nvlink-e", ["nvidia-smi", "nvlink", "-e"],
                  "".join(nvlink_text(i, now[i]) for i in range(2)))
        s.command("history-previous", ["gpudoctor-history-previous", "/var/lib/gpudoctor/history"],
                  history_summary(gpus, before))
        s.finish(ROOT_IDENTITY, PATH_ENV)

    # 21. Issue 25 item 4, an image's NVIDIA_REQUIRE_CUDA: the CUDA 12.8 image of
    # NVIDIA/nvidia-container-toolkit#940 on a host with driver 565.77 (CUDA 12.7), started with
    # NVIDIA_DISABLE_REQUIRE=true; the healthy neighbour is nvidia-h200-real (its real cuda>=13.0 on 580/13.0).
    s = Snapshot("nvidia-container-cuda128-driver565", "Container of a CUDA 12.8 image on a host driver 565.77 "
                 "(CUDA 12.7), started with NVIDIA_DISABLE_REQUIRE=true (from nvidia-h200-real)")
    nvidia_base(s, ["0000:00:06.0"], driver_version="565.77", proc_version=(
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  565.77  Release Build  (dvs-builder@U16-I2-C03-12-4)"
        "  Wed Nov 27 23:33:08 UTC 2024\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n"))
    s.stat["/.dockerenv"] = {"type": "file", "mode": "0755", "uid": 0, "gid": 0, "group": "root"}
    s.fs("/var/lib/dpkg/status", dpkg([("libnvidia-compute-565", "565.77-0ubuntu1")]))
    xml = smi_xml(["0000:00:06.0"]).replace("<driver_version>580.159.04</driver_version>",
                                            "<driver_version>565.77</driver_version>")
    xml = xml.replace("<cuda_version>13.0</cuda_version>", "<cuda_version>12.7</cuda_version>")
    s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], xml)
    env = dict(PATH_ENV)
    env.update({"CUDA_VERSION": "12.8.0", "NVIDIA_REQUIRE_CUDA": "cuda>=12.8", "NVIDIA_DISABLE_REQUIRE": "true",
                "NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "compute,utility"})
    s.finish(ROOT_IDENTITY, env)

    # 24-26. Issue 25 item 4, an NVIDIA container without its GPUs: mmartial/ComfyUI-Nvidia-Docker#57, the
    # image nvidia/cuda:12.8.1-cudnn-devel-ubuntu24.04 on a host with an RTX 5090, started without --gpus
    # (no /dev/nvidia* node, no nvidia-smi: the toolkit injected nothing); the same image started with
    # NVIDIA_VISIBLE_DEVICES=void (the toolkit's "inject nothing"); and a CPU-only image (no CUDA) with void,
    # which needs no GPU and must not fire.
    def container_5090(s):
        nvidia_base(s, ["0000:01:00.0"], device_id="0x2b85", driver_version="570.133.07", proc_version=(
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.07  Release Build  "
            "(dvs-builder@U16-I6-C03-3-2)  Fri Mar 14 13:48:47 UTC 2025\n"
            "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n"))
        for node in [k for k in s.stat if k.startswith("/dev/nvidia")]:
            del s.stat[node]
        s.stat["/.dockerenv"] = {"type": "file", "mode": "0755", "uid": 0, "gid": 0, "group": "root"}
    cuda_image_env = dict(PATH_ENV)
    cuda_image_env.update({"CUDA_VERSION": "12.8.1", "NVIDIA_REQUIRE_CUDA": "cuda>=12.8",
                           "NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "compute,utility",
                           "NV_CUDNN_PACKAGE": "libcudnn9-cuda-12=9.8.0.87-1"})
    cpu_env = dict(PATH_ENV)
    for name, note, env in [
            ("nvidia-container-no-gpus-rtx5090", "Container of nvidia/cuda:12.8.1-cudnn-devel on an RTX 5090 host, "
             "started without --gpus (ComfyUI-Nvidia-Docker#57; from nvidia-h200-real)", cuda_image_env),
            ("nvidia-container-visible-void-rtx5090", "The same CUDA container started with "
             "NVIDIA_VISIBLE_DEVICES=void (from nvidia-h200-real)", dict(cuda_image_env, NVIDIA_VISIBLE_DEVICES="void")),
            ("nvidia-container-cpu-only-void-healthy", "A CPU-only container (no CUDA) with NVIDIA_VISIBLE_DEVICES=void "
             "on the RTX 5090 host (from nvidia-h200-real)", dict(cpu_env, NVIDIA_VISIBLE_DEVICES="void"))]:
        s = Snapshot(name, note)
        container_5090(s)
        s.finish(ROOT_IDENTITY, env)

    ubuntu_driver_secure_boot()
    amd_fixtures()


# Ubuntu's own driver 550 on Ubuntu 24.04 under Secure Boot, as `ubuntu-drivers install` leaves it: the
# packages of nvidia-graphics-drivers-550 and the prebuilt modules signed by Canonical (linux-restricted-modules).
UBUNTU = "Ubuntu Core Developers <ubuntu-devel-discuss@lists.ubuntu.com>"
UBUNTU_550 = "550.163.01-0ubuntu0.24.04.1"
UBUNTU_KERNEL = "6.8.0-49-generic"
UBUNTU_LRM = "6.8.0-49.49"


def ubuntu_driver_secure_boot():
    s = Snapshot("nvidia-ubuntu2404-distribution-driver-secure-boot",
                 "H200 on Ubuntu 24.04 with Ubuntu's signed driver 550 under Secure Boot (from nvidia-h200-real)")
    proc = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.163.01  Tue Apr 29 21:31:37 UTC 2025\n"
            "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04) \n")
    nvidia_base(s, ["0000:00:06.0"], driver_version="550.163.01", proc_version=proc)
    s.fs("/proc/sys/kernel/osrelease", UBUNTU_KERNEL + "\n")
    v = UBUNTU_550
    packages = [
        ("nvidia-driver-550", v, UBUNTU, f"libnvidia-gl-550 (= {v}), nvidia-dkms-550 (= {v}) | "
         "nvidia-kernel-550, nvidia-kernel-common-550 (= %s), libnvidia-compute-550 (= %s), "
         "nvidia-compute-utils-550 (= %s), nvidia-utils-550 (= %s), xserver-xorg-video-nvidia-550 (= %s)"
         % (v, v, v, v, v)),
        ("libnvidia-gl-550", v, UBUNTU, "libnvidia-common-550"),
        ("libnvidia-common-550", v, UBUNTU, ""),
        ("libnvidia-compute-550", v, UBUNTU, ""),
        ("nvidia-compute-utils-550", v, UBUNTU, f"libnvidia-compute-550 (= {v})"),
        ("nvidia-utils-550", v, UBUNTU, f"libnvidia-compute-550 (= {v})"),
        ("nvidia-kernel-common-550", v, UBUNTU, f"nvidia-firmware-550-550.163.01 (= {v})"),
        ("nvidia-firmware-550-550.163.01", v, UBUNTU, ""),
        ("xserver-xorg-video-nvidia-550", v, UBUNTU, "libnvidia-gl-550"),
        ("linux-modules-nvidia-550-generic", "6.8.0-49.49", "Ubuntu Kernel Team <kernel-team@lists.ubuntu.com>",
         f"linux-modules-nvidia-550-{UBUNTU_KERNEL} (= {UBUNTU_LRM})"),
        (f"linux-modules-nvidia-550-{UBUNTU_KERNEL}", UBUNTU_LRM, "Ubuntu Kernel Team <kernel-team@lists.ubuntu.com>",
         f"linux-signatures-nvidia-{UBUNTU_KERNEL} (= {UBUNTU_LRM}), nvidia-kernel-common-550 (>= 550.163.01)"),
        (f"linux-signatures-nvidia-{UBUNTU_KERNEL}", UBUNTU_LRM, "Ubuntu Kernel Team <kernel-team@lists.ubuntu.com>",
         ""),
        ("mokutil", "0.6.0-2build3", "Ubuntu Developers <ubuntu-devel-discuss@lists.ubuntu.com>", ""),
    ]
    s.fs("/var/lib/dpkg/status", dpkg(packages))

    xml = smi_xml(["0000:00:06.0"]).replace("<driver_version>580.159.04", "<driver_version>550.163.01") \
        .replace("<cuda_version>13.0", "<cuda_version>12.4")
    s.command("nvidia-smi-xml", ["nvidia-smi", "-q", "-x"], xml)
    s.command("mokutil-sb-state", ["/usr/bin/mokutil", "--sb-state"], "SecureBoot enabled\n")
    s.command("dmesg", ["dmesg"], BOOT)
    s.finish(dict(ROOT_IDENTITY, hostname="gpu24"), PATH_ENV)


# ---- AMD, from amd-mi210-healthy ------------------------------------------------------------------------------

def amd_copy(name, note):
    s = Snapshot(name, note)
    shutil.rmtree(s.dir)
    shutil.copytree(MI210, s.dir, symlinks=True)
    for keep in ["commands.json", "manifest.json"]:
        os.remove(os.path.join(s.dir, keep))
    s.commands = json.load(open(os.path.join(MI210, "commands.json")))
    s.json("manifest.json", {"format": "gpudoctor-snapshot", "version": 1, "created": "2026-12-01T00:00:00Z",
                             "tool": "gpudoctor 0.1.0", "origin": "fixture", "note": note})
    s.stat = json.load(open(os.path.join(MI210, "stat.json")))
    return s


def amd_finish(s):
    s.json("stat.json", s.stat)
    s.json("commands.json", s.commands)


def remove_paths(s, paths):
    for p in paths:
        full = os.path.join(s.dir, p)
        if os.path.islink(full) or os.path.isfile(full):
            os.remove(full)
        elif os.path.isdir(full):
            shutil.rmtree(full)


def without_amd_stack(s, added):
    """AMD's ROCm and amdgpu-dkms out of the dpkg status (the folders are remove_paths'), `added` in."""
    drop = ("Package: amdgpu-dkms", "Package: hip-runtime-amd", "Package: rocm-core", "Package: rocminfo")
    status = os.path.join(s.dir, "fs/var/lib/dpkg/status")
    paragraphs = [p for p in read(status).split("\n\n") if p.strip() and not p.startswith(drop)]
    paragraphs.append(added)
    with open(status, "w") as f:
        f.write("\n\n".join(paragraphs) + "\n")


def amd_fixtures():
    # 9. A ring-timeout / reset loop: the real SDMA timeout incident of ROCm/ROCm#2330, three times.
    s = amd_copy("amd-mi210-ring-timeout-reset-loop", "MI210 hanging again and again (from amd-mi210-healthy)")
    incident = realdata("dmesg-amdgpu-sdma-timeout-gpu-reset-1.txt").replace("0000:08:00.0", "0000:63:00.0") \
        .replace("crash kernel:", "mi210-node07 kernel:")
    log = "".join(incident.replace("May 11 13:59", f"May 11 {h:02d}:59") for h in (11, 13, 15))
    # dmesg refused (CAP_SYSLOG dropped by the service that runs gpudoctor), the journal answered.
    s.command("dmesg", ["dmesg"], "", 1, "dmesg: read kernel buffer failed: Operation not permitted\n")
    s.command("dmesg", ["journalctl", "-k", "-b", "0", "-o", "short-iso", "--no-pager"], log)
    amd_finish(s)

    # 10. An AMD GPU missing its firmware on Debian 12 (per kernelci-core#2238's lines, for gfx12 files).
    s = amd_copy("amd-debian12-firmware-missing",
                 "Debian 12 with a Radeon AI PRO R9700 whose firmware is missing (from amd-mi210-healthy)")
    gpu = "fs/sys/devices/pci0000:60/0000:60:03.1/0000:61:00.0/0000:62:00.0/0000:63:00.0"
    with open(os.path.join(s.dir, gpu, "device"), "w") as f:
        f.write("0x7551\n")
    with open(os.path.join(s.dir, gpu, "revision"), "w") as f:
        f.write("0xc0\n")
    os.remove(os.path.join(s.dir, gpu, "driver"))  # amdgpu gave up: nothing bound
    for extra in ["drm", "mem_info_vram_total"]:
        p = os.path.join(s.dir, gpu, extra)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
    remove_paths(s, ["fs/sys/class/kfd", "fs/sys/devices/virtual/kfd", "fs/sys/module/amdgpu/version"])
    s.stat = {k: v for k, v in s.stat.items() if not k.startswith("/dev/kfd") and not k.startswith("/dev/dri")}
    with open("/etc/os-release") as f:  # Debian 12, as on this project's development machine
        os_release = f.read()
    for p in ["fs/usr/lib/os-release"]:
        with open(os.path.join(s.dir, p), "w") as f:
            f.write(os_release)
    # A desktop Debian 12 with the kernel's own amdgpu: no ROCm, no amdgpu-dkms.
    remove_paths(s, ["fs/opt", "fs/etc/alternatives/rocm"])
    without_amd_stack(s, "Package: firmware-amd-graphics\nStatus: install ok installed\nPriority: optional\n"
                      "Section: non-free-firmware/kernel\nArchitecture: all\nSource: firmware-nonfree\n"
                      "Version: 20230210-5\nDescription: Binary firmware for AMD/ATI graphics chips")
    modules = os.path.join(s.dir, "fs/proc/modules")
    with open(modules, "w") as f:  # the kernel's own amdgpu, loaded: it found no firmware for the GPU
        f.write("amdgpu 12914688 0 - Live 0x0000000000000000\ndrm_buddy 20480 1 amdgpu, Live 0x0000000000000000\n")
    for name in ["gc_11_0_0_me.bin", "gc_11_0_0_mec.bin", "gc_11_0_0_pfp.bin", "gc_11_0_0_rlc.bin",
                 "psp_13_0_0_sos.bin", "psp_13_0_0_ta.bin", "smu_13_0_0.bin", "dcn_3_2_0_dmcub.bin"]:
        s.fs("/lib/firmware/amdgpu/" + name, "")
    lines = ["[    3.101552] [drm] amdgpu kernel modesetting enabled."]
    for fw in ["psp_14_0_3_sos.bin", "gc_12_0_1_pfp.bin", "gc_12_0_1_me.bin", "gc_12_0_1_mec.bin",
               "gc_12_0_1_rlc.bin"]:
        lines.append(f"[    3.576634] amdgpu 0000:63:00.0: Direct firmware load for amdgpu/{fw} failed with error -2")
    lines += ["[    3.586367] amdgpu 0000:63:00.0: amdgpu: fail to request/validate toc microcode",
              "[    3.593924] [drm:psp_sw_init [amdgpu]] *ERROR* Failed to load psp firmware!",
              "[    3.600359] [drm:amdgpu_device_ip_init [amdgpu]] *ERROR* sw_init of IP block <psp> failed -2",
              "[    3.608265] amdgpu 0000:63:00.0: amdgpu: amdgpu_device_ip_init failed",
              "[    3.614955] amdgpu 0000:63:00.0: amdgpu: Fatal error during GPU init",
              "[    3.615102] amdgpu: probe of 0000:63:00.0 failed with error -2"]
    s.command("dmesg", ["dmesg"], "\n".join(lines) + "\n")
    with open(os.path.join(s.dir, "fs/proc/sys/kernel/osrelease"), "w") as f:
        f.write("6.1.0-28-amd64\n")  # Debian 12's kernel
    identity = json.load(open(os.path.join(s.dir, "identity.json")))
    identity["hostname"] = "ws03"
    s.json("identity.json", identity)
    amd_finish(s)

    debian13_distribution_rocm()


# Debian 13's own ROCm (main: the Debian ROCm Team's packages, records as trixie's Packages index has them)
# beside OpenMPI's libucx0, which needs Debian's HIP runtime; the kernel's own amdgpu, no AMD repository.
DEBIAN_ROCM = "Debian ROCm Team <debian-ai@lists.debian.org>"
DEBIAN13_ROCM = [
    ("rocminfo", "6.1.2-2", DEBIAN_ROCM, "libc6 (>= 2.34), libhsa-runtime64-1 (>= 6.1.2~), python3, pciutils, kmod"),
    ("hipcc", "5.7.1-6+deb13u1", DEBIAN_ROCM, "rocm-device-libs-17, rocminfo, libamdhip64-dev"),
    ("libamdhip64-dev", "5.7.1-6+deb13u1", DEBIAN_ROCM, "libamdhip64-5 (= 5.7.1-6+deb13u1)"),
    ("libamdhip64-5", "5.7.1-6+deb13u1", DEBIAN_ROCM, "libamd-comgr2, libhsa-runtime64-1 (>= 5.7.1)"),
    ("libhsa-runtime64-1", "6.1.2-3", DEBIAN_ROCM, "libc6 (>= 2.38), libhsakmt1 (>= 6.1.2)"),
    ("libhsakmt1", "6.2.4+ds-1", DEBIAN_ROCM, "libc6 (>= 2.38)"),
    ("libamd-comgr2", "6.0+git20231212.4510c28+dfsg-3+b2", DEBIAN_ROCM, "libc6 (>= 2.38)"),
    ("rocm-device-libs-17", "6.0+git20231212.5a852ed-2", "Debian Deep Learning Team <debian-ai@lists.debian.org>",
     ""),
    ("rocm-smi", "6.1.2-1", "ROCm Team <debian-ai@lists.debian.org>", "python3:any, librocm-smi64-1 (= 6.1.2-1)"),
    ("librocm-smi64-1", "6.1.2-1", "ROCm Team <debian-ai@lists.debian.org>", "libc6 (>= 2.38)"),
    ("libucx0", "1.18.1+ds-2+b1", "Debian Science Maintainers <debian-science-maintainers@lists.alioth.debian.org>",
     "libamdhip64-5 (>= 4.5.2), libc6 (>= 2.38), libhsa-runtime64-1 (>= 5.7.1)"),
]
DEBIAN13_OS_RELEASE = (
    'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nNAME="Debian GNU/Linux"\nVERSION_ID="13"\n'
    'VERSION="13 (trixie)"\nVERSION_CODENAME=trixie\nDEBIAN_VERSION_FULL=13.2\nID=debian\n'
    'HOME_URL="https://www.debian.org/"\nSUPPORT_URL="https://www.debian.org/support"\n'
    'BUG_REPORT_URL="https://bugs.debian.org/"\n')


def debian13_distribution_rocm():
    s = amd_copy("amd-debian13-distribution-rocm",
                 "Debian 13 with Debian's own ROCm and an MI210 (from amd-mi210-healthy)")
    with open(os.path.join(s.dir, "fs/usr/lib/os-release"), "w") as f:
        f.write(DEBIAN13_OS_RELEASE)
    with open(os.path.join(s.dir, "fs/proc/sys/kernel/osrelease"), "w") as f:
        f.write("6.12.48+deb13-amd64\n")
    remove_paths(s, ["fs/opt", "fs/etc/alternatives/rocm", "fs/sys/module/amdgpu/version"])
    without_amd_stack(s, dpkg(DEBIAN13_ROCM).rstrip("\n"))
    identity = json.load(open(os.path.join(s.dir, "identity.json")))
    identity["hostname"] = "trixie-mi210"
    s.json("identity.json", identity)
    amd_finish(s)
    for folder, dirs, files in os.walk(s.dir):  # git keeps no empty folder (the in-tree amdgpu's /sys/module)
        if not dirs and not files:
            open(os.path.join(folder, ".gpudoctor-keep"), "w").close()


if __name__ == "__main__":
    sys.exit(main())
