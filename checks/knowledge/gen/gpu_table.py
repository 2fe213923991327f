#!/usr/bin/env python3
"""Builds gpudoctor's GPU table: every NVIDIA and AMD GPU by PCI id, with its architecture.

Two steps (docs/knowledge.md, "The GPU table"):

  extract  reads the upstream lists (pinned below by version and sha256; they are not kept in the repository)
           and the hand-kept files beside this script, and writes gpu_rows.tsv: the extracted rows, each with
           its sources, and a header naming the upstream files, versions and hashes.
  emit     turns gpu_rows.tsv into src/knowledge/gpu_table_data.cpp, the table compiled into gpudoctor.
           tests/unit/test_gpu_table.cpp checks that the committed source matches the committed rows.

Where the architecture comes from:
  NVIDIA  pci.ids names each device's chip ("AD102 [GeForce RTX 4090]"). A product of NVIDIA's compute-
          capability pages (products.tsv) that names a device gives its chip's architecture; chips.tsv adds
          chips no listed product names. Names: the open-gpu-kernel-modules table, else pci.ids.
  AMD     amdgpu.ids names each device and revision. A model of AMD's architecture table (gpu-arch-specs.rst,
          products.tsv) that names a device gives the LLVM target of that device (every revision: one die), and
          through pci.ids of every device of the same chip; chips.tsv adds chips no listed model names.
          gfx_target_version follows from the LLVM name (KFD encodes major, minor and the hex stepping).
Every conflict (two architectures for one chip or device) stops the script.

Usage:
  gpu_table.py extract --ogkm README.md --pciids pci.ids --amdgpu-ids amdgpu.ids --rocm-specs gpu-arch-specs.rst
  gpu_table.py emit
"""
import argparse
import hashlib
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
ROWS = HERE / "gpu_rows.tsv"
CPP = ROOT / "src" / "knowledge" / "gpu_table_data.cpp"

# The upstream files read, pinned. A newer file: update the entry (and the citation in sources.tsv).
UPSTREAM = {
    "ogkm": ("OGKM", "NVIDIA/open-gpu-kernel-modules README.md", "595.45.04",
             "df1c9a3de2be4b130f4fc7680f7198193d8ac6ad",
             "bc77f8a420a599eb7382a7f358301a1ba20aee196aaf839797b542c831f455aa"),
    "pciids": ("PCIIDS", "pciutils/pciids pci.ids", "2026.08.22", "c1c12547d626ebf05fd0223144ad87fab5e95d06",
               "7c0995c42c9891846f3e427921826cbc2a09de6c135472922b6c6d04004c95ad"),
    "amdgpu_ids": ("AMDGPU-IDS", "libdrm data/amdgpu.ids (mirror sailfishos-mirror/drm)", "libdrm 2.4.134",
                   "82f74e7a5a7403392e91352af00210ae26a81f19",
                   "ffd2a8f1bfa755f4d90f537b4969fc4676f116e5af051ce2f18ef93a96d8beb6"),
    "rocm_specs": ("ROCM-SPECS", "ROCm/ROCm docs/reference/gpu-arch-specs.rst", "2025-03-21",
                   "e396b4898f459db094bfd60b876f419f77eb9f09",
                   "74d206bfaa6cc61d7816e7abdcc9b349f1fe0a884eaed2fc894165749bf75c6e"),
}

NVIDIA, AMD = 0x10DE, 0x1002
# pci.ids entries of GPU vendors that are not GPUs (audio, USB, bridges, switches, chipsets).
NOT_A_GPU = re.compile(r"Audio|USB|[Bb]ridge|NVSwitch|[Hh]ost\b|Controller|SMBus|Ethernet|SATA|\bIDE\b|\bLPC\b|"
                       r"Memory|Coprocessor|Upstream|Downstream|Switch|UART|Crypto|Serial|\bPCI\b|nForce|MCP")
DROP_WORDS = {"nvidia", "amd", "tesla", "instinct"}


def fail(message):
    sys.exit(f"gpu_table.py: {message}")


def tsv_rows(path):
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            yield raw.split("\t")


def words(name):
    """A name as the words matching compares: lower case, marks and punctuation gone, vendor words dropped."""
    s = name.lower().replace("(tm)", " ").replace("\u2122", " ").replace("\u00ae", " ")
    s = re.sub(r"[,/()\[\]]", " ", s)
    out = s.split()
    while out and (out[0] in DROP_WORDS or (out[0] == "radeon" and out[1:2] == ["instinct"])):
        out.pop(0)
    while out and out[-1] in ("graphics", "series"):
        out.pop()
    return out


def starts_with(name_words, product_words):
    return bool(product_words) and name_words[:len(product_words)] == product_words


# ---- upstream readers -------------------------------------------------------------------------------------


def read_ogkm(text):
    """The "Compatible GPUs" table: (device, subsystem vendor, subsystem device, name)."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line.strip() == "## Compatible GPUs"
            continue
        if not inside or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[1] in ("PCI ID", "") or set(cells[1]) <= set("- "):
            continue
        ids = cells[1].split()
        if len(ids) not in (1, 3):
            fail(f"open-gpu-kernel-modules row with {len(ids)} ids: {line}")
        dev = int(ids[0], 16)
        sv, sd = (int(ids[1], 16), int(ids[2], 16)) if len(ids) == 3 else (None, None)
        rows.append((dev, sv, sd, cells[0]))
    if len(rows) < 500:
        fail(f"only {len(rows)} rows read from the open-gpu-kernel-modules table")
    return rows


def read_pciids(text):
    """{vendor: {device: name}} for the two GPU vendors (device lines only)."""
    out, vendor = {NVIDIA: {}, AMD: {}}, None
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if not line.startswith("\t"):
            head = line.split(None, 1)[0]
            vendor = int(head, 16) if re.fullmatch(r"[0-9a-f]{4}", head) else None
            vendor = vendor if vendor in out else None
            if line.startswith("C "):
                vendor = None
            continue
        if vendor is None or line.startswith("\t\t"):
            continue
        m = re.match(r"\t([0-9a-f]{4})  (.*)$", line)
        if m:
            out[vendor][int(m.group(1), 16)] = m.group(2).strip()
    return out


def read_amdgpu_ids(text):
    rows = []
    for line in text.splitlines():
        if not line or line.startswith("#") or re.fullmatch(r"\d+\.\d+\.\d+", line.strip()):
            continue
        parts = [p.strip() for p in line.split(",", 2)]
        if len(parts) != 3:
            fail(f"amdgpu.ids line not 'device, revision, name': {line!r}")
        rows.append((int(parts[0], 16), int(parts[1], 16), parts[2]))
    return rows


def read_rocm_specs(text):
    """The list-tables: (model, architecture, LLVM target, VRAM GiB)."""
    rows, current = [], None
    for line in text.splitlines():
        if re.match(r"\s+\*\s*$", line):
            if current:
                rows.append(current)
            current = []
        elif current is not None and re.match(r"\s+- ", line):
            current.append(line.split("- ", 1)[1].strip())
        elif current is not None and re.match(r"\s+-\s*$", line):
            current.append("")
        elif current is not None and line.strip() and not line.startswith(" " * 8):
            rows.append(current)
            current = None
    if current:
        rows.append(current)
    out = [(r[0], r[1], r[2], r[3]) for r in rows if len(r) >= 4 and r[0] != "Model" and r[2].startswith("gfx")]
    if len(out) < 30:
        fail(f"only {len(out)} models read from gpu-arch-specs.rst")
    return out


# ---- knowledge of this folder -----------------------------------------------------------------------------


def read_products(rocm_specs):
    """Products with their architecture: [(vendor, words, arch, family, vram, source)]."""
    out = []
    for model, family, target, vram in rocm_specs:
        out.append((AMD, words(model), target, family, vram.split()[0] if vram else "", "ROCM-SPECS"))
    for r in tsv_rows(HERE / "products.tsv"):
        vendor, product, arch, family, vram, source = (r + [""] * 6)[:6]
        out.append((NVIDIA if vendor == "nvidia" else AMD, words(product), arch, family, vram, source))
    return out


def read_chips():
    """Hand rows: {(vendor, chip): (arch, family, sources, uncertain)}."""
    out = {}
    for r in tsv_rows(HERE / "chips.tsv"):
        vendor, chip, arch, family, source, uncertain = (r + [""] * 6)[:6]
        out[(NVIDIA if vendor == "nvidia" else AMD, chip)] = (arch, family, source.split(), uncertain == "uncertain")
    return out


def nvidia_chip(pci_name):
    """"AD102GL [RTX 6000 Ada Generation]" -> "AD102"; empty for an entry without a chip code name."""
    head = pci_name.split(" ", 1)[0].split("/")[0]
    for suffix in ("GLM", "GL", "M"):
        if head.endswith(suffix) and re.fullmatch(r"[A-Z]{2}\d{2,3}[A-Z]?", head[:-len(suffix)]):
            return head[:-len(suffix)]
    return head if re.fullmatch(r"[A-Z]{2}\d{2,3}[A-Z]?", head) else ""


def amd_chip(pci_name):
    """"Navi 22 [Radeon RX 6700 ...]" -> "Navi 22"; "Navi 22-XL SRIOV MxGPU" -> "Navi 22-XL SRIOV MxGPU"."""
    return pci_name.split(" [", 1)[0].strip()


def chip_key(chip, known):
    """The longest known chip name that is the chip or its first words ("Vega 10 XL/XT" -> "Vega 10")."""
    tokens = re.split(r"[ /-]+", chip)
    for n in range(len(tokens), 0, -1):
        key = " ".join(tokens[:n])
        if key in known:
            return key
    return None


def bracket_name(pci_name):
    m = re.search(r"\[(.*)\]", pci_name)
    return m.group(1).strip() if m else ""


# ---- extraction -------------------------------------------------------------------------------------------


class Table:
    def __init__(self):
        self.rows = {}

    def add(self, vendor, device, rev, sv, sd, name, arch, family, vram, sources, uncertain=False):
        key = (vendor, device, rev, sv, sd)
        if key in self.rows:
            return
        gfx = gfx_target_version(arch) if vendor == AMD else 0
        self.rows[key] = [vendor, device, rev, sv, sd, name, arch, family, gfx, vram,
                          sorted(set(sources), key=SOURCE_ORDER.index), uncertain]


SOURCE_ORDER = []


def gfx_target_version(target):
    """LLVM gfx name -> KFD encoding: gfx90a = 9.0.10 -> 90010, gfx1031 -> 100301 (the stepping is hex)."""
    m = re.fullmatch(r"gfx(\d{1,2})([0-9a-f])([0-9a-f])", target)
    if not m:
        fail(f"not an LLVM gfx target: {target}")
    return int(m.group(1)) * 10000 + int(m.group(2), 16) * 100 + int(m.group(3), 16)


def learn(votes, key, value, why):
    """Records that `why` gives `key` the architecture `value`; several different values are a conflict."""
    votes.setdefault(key, {}).setdefault(value[0], (value, why))


def agreed(votes, what):
    """The keys whose votes agree; a conflict is reported and left for chips.tsv to settle."""
    out = {}
    for key, by_arch in votes.items():
        if len(by_arch) == 1:
            out[key] = next(iter(by_arch.values()))
        else:
            CONFLICTS.append(f"{what} {key}: " + "; ".join(f"{a} from {w}" for a, (_, w) in sorted(by_arch.items())))
    return out


CONFLICTS = []


def extract_nvidia(table, ogkm, pci, products, chips):
    names = defaultdict(list)  # device -> names that name it (OGKM and pci.ids)
    for dev, _, _, name in ogkm:
        names[dev].append(name)
    for dev, pci_name in pci.items():
        if bracket_name(pci_name):
            names[dev].extend(n.strip() for n in bracket_name(pci_name).split(" / "))
    chip_of = {dev: nvidia_chip(n) for dev, n in pci.items() if nvidia_chip(n)}
    votes = {}
    for vendor, pwords, arch, family, _, source in products:
        if vendor != NVIDIA:
            continue
        for dev, dev_names in names.items():
            if dev in chip_of and any(starts_with(words(n), pwords) for n in dev_names):
                learn(votes, chip_of[dev], (arch, family, source), f"{' '.join(pwords)} ({dev:04x})")
    resolved = {chip: (v[0][0], v[0][1], [v[0][2]], False) for chip, v in agreed(votes, "NVIDIA chip").items()}
    for (vendor, chip), (arch, family, source, uncertain) in chips.items():
        if vendor != NVIDIA:
            continue
        if chip in resolved and resolved[chip][0] != arch:
            fail(f"chips.tsv says {chip} is {arch}; the product lists say {resolved[chip][0]}")
        resolved.setdefault(chip, (arch, family, source, uncertain))
    # "TU106B", "GA107B", "GP108B": later dies of a chip, the same architecture (Tegra parts such as GA10B
    # have no chip of their own in pci.ids, so they stay out).
    for dev, chip in list(chip_of.items()):
        if chip not in resolved and chip.endswith("B") and chip[:-1] in resolved:
            arch, family, source, uncertain = resolved[chip[:-1]]
            resolved[chip] = (arch, family, source + ["GD-CHIP"], uncertain)
    for dev, sv, sd, name in ogkm:
        chip = chip_of.get(dev)
        if chip in resolved:
            arch, family, source, uncertain = resolved[chip]
            table.add(NVIDIA, dev, None, sv, sd, name, arch, family, "", ["OGKM", "PCIIDS"] + source, uncertain)
    for dev, pci_name in sorted(pci.items()):
        chip, name = chip_of.get(dev), bracket_name(pci_name)
        if chip in resolved and name and not NOT_A_GPU.search(pci_name):
            arch, family, source, uncertain = resolved[chip]
            table.add(NVIDIA, dev, None, None, None, name, arch, family, "", ["PCIIDS"] + source, uncertain)
    return resolved


def extract_amd(table, ids, pci, products, chips):
    by_device = defaultdict(list)
    for dev, rev, name in ids:
        by_device[dev].append((rev, name))
    device_votes, chip_votes, row_match = {}, {}, {}
    for vendor, pwords, arch, family, vram, source in products:
        if vendor != AMD:
            continue
        for dev, revs in by_device.items():
            for rev, name in revs:
                if starts_with(words(name), pwords):
                    learn(device_votes, dev, (arch, family, source), f"{name} ({dev:04x} rev {rev:02x})")
                    if words(name) == pwords:
                        row_match[(dev, rev)] = vram
        for dev, pci_name in pci.items():
            for name in bracket_name(pci_name).split(" / "):
                if not NOT_A_GPU.search(pci_name) and starts_with(words(name), pwords):
                    learn(device_votes, dev, (arch, family, source), f"{name} ({dev:04x}, pci.ids)")
    device_votes = agreed(device_votes, "AMD device")
    for dev, (value, why) in device_votes.items():
        if dev in pci and not NOT_A_GPU.search(pci[dev]):
            learn(chip_votes, amd_chip(pci[dev]), value, why)
    resolved = {chip: (v[0][0], v[0][1], [v[0][2], "PCIIDS", "GD-CHIP"], False)
                for chip, v in agreed(chip_votes, "AMD chip").items()}
    for (vendor, chip), (arch, family, source, uncertain) in chips.items():
        if vendor != AMD:
            continue
        if chip in resolved and resolved[chip][0] != arch:
            fail(f"chips.tsv says {chip} is {arch}; the product lists say {resolved[chip][0]}")
        resolved.setdefault(chip, (arch, family, ["PCIIDS"] + source, uncertain))

    def arch_of(dev):
        if dev in device_votes:
            arch, family, source = device_votes[dev][0]
            return arch, family, [source], False
        if dev in pci and not NOT_A_GPU.search(pci[dev]):
            key = chip_key(amd_chip(pci[dev]), resolved)
            if key:
                return resolved[key]
        return None

    for dev, revs in sorted(by_device.items()):
        found = arch_of(dev)
        if not found:
            continue
        arch, family, source, uncertain = found
        for rev, name in revs:
            table.add(AMD, dev, rev, None, None, name, arch, family, row_match.get((dev, rev), ""),
                      ["AMDGPU-IDS"] + source, uncertain)
    for dev, pci_name in sorted(pci.items()):
        found = arch_of(dev)
        if not found or NOT_A_GPU.search(pci_name):
            continue
        arch, family, source, uncertain = found
        name = pci_name  # the chip code name and its products, as pci.ids gives them
        # A device-only row: a revision amdgpu.ids does not list still has its die's target.
        table.add(AMD, dev, None, None, None, name, arch, family, "", ["PCIIDS"] + source, uncertain)


def check_upstream(args):
    texts = {}
    for key, (_, what, version, commit, sha) in UPSTREAM.items():
        path = getattr(args, key)
        data = Path(path).read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != sha and not args.accept_new:
            fail(f"{path}: sha256 {digest}, pinned {sha} ({what} {version}); pass --accept-new to read it, "
                 f"then pin the new file in UPSTREAM")
        texts[key] = (data.decode("utf-8", errors="replace"), digest)
    return texts


def write_rows(table, sources, texts):
    out = ["# GPU table rows, extracted by checks/knowledge/gen/gpu_table.py extract; do not edit by hand.",
           "# Upstream files read (name, version, commit, sha256):"]
    for key, (skey, what, version, commit, _) in UPSTREAM.items():
        out.append(f"#\tupstream\t{skey}\t{what}\t{version}\t{commit}\tsha256={texts[key][1]}")
    for key, citation in sources.items():
        out.append(f"#\tsource\t{key}\t{citation}")
    out.append("# vendor\tdevice\trevision\tsubsystem_vendor\tsubsystem_device\tname\tarch\tfamily"
               "\tgfx_target_version\tvram_gib\tsource\tuncertain")
    hexs = lambda v, w: "" if v is None else f"0x{v:0{w}x}"
    for key in sorted(table.rows, key=lambda k: tuple(-1 if x is None else x for x in k)):
        v, d, r, sv, sd, name, arch, family, gfx, vram, source, unc = table.rows[key]
        if "\t" in name:
            fail(f"a tab in the name {name!r}")
        out.append("\t".join([hexs(v, 4), hexs(d, 4), hexs(r, 2), hexs(sv, 4), hexs(sd, 4), name, arch, family,
                              str(gfx) if gfx else "", vram, " ".join(source), "uncertain" if unc else ""]))
    ROWS.write_text("\n".join(out) + "\n", encoding="utf-8")
    return len(table.rows)


def extract(args):
    texts = check_upstream(args)
    sources = {r[0]: r[1] for r in tsv_rows(HERE / "sources.tsv")}
    SOURCE_ORDER[:] = list(sources)
    pci = read_pciids(texts["pciids"][0])
    products = read_products(read_rocm_specs(texts["rocm_specs"][0]))
    chips = read_chips()
    table = Table()
    extract_nvidia(table, read_ogkm(texts["ogkm"][0]), pci[NVIDIA], products, chips)
    extract_amd(table, read_amdgpu_ids(texts["amdgpu_ids"][0]), pci[AMD], products, chips)
    for row in table.rows.values():
        for key in row[10]:
            if key not in sources:
                fail(f"source {key} is not in sources.tsv")
    n = write_rows(table, sources, texts)
    print(f"{ROWS.relative_to(ROOT)}: {n} rows")
    for c in CONFLICTS:
        print(f"conflict (left to chips.tsv): {c}")
    if args.report:
        report_unresolved(pci, table)


def report_unresolved(pci, table):
    seen = {(k[0], k[1]) for k in table.rows}
    for vendor, chip_of in ((NVIDIA, nvidia_chip), (AMD, amd_chip)):
        missing = defaultdict(list)
        for dev, name in pci[vendor].items():
            if (vendor, dev) not in seen and not NOT_A_GPU.search(name) and chip_of(name) and bracket_name(name):
                missing[chip_of(name)].append(f"{dev:04x} {bracket_name(name)}")
        for chip, devs in sorted(missing.items()):
            print(f"unresolved {vendor:04x} {chip}: {len(devs)}: {'; '.join(devs[:3])}")


# ---- emission ---------------------------------------------------------------------------------------------


def cpp_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def emit_text(rows_text):
    rows = [line.split("\t") for line in rows_text.splitlines() if line and not line.startswith("#")]
    sources = [line.split("\t")[2:4] for line in rows_text.splitlines() if line.startswith("#\tsource\t")]
    num = lambda s: s if s else "-1"
    lines = ["// GENERATED by checks/knowledge/gen/gpu_table.py emit from checks/knowledge/gen/gpu_rows.tsv;",
             "// do not edit. Regenerate: python3 checks/knowledge/gen/gpu_table.py emit",
             "// clang-format off",
             '#include "knowledge/gpu_table.hpp"',
             "",
             "namespace gpudoctor {",
             "",
             "namespace {",
             "",
             "constexpr GpuTableRow k_rows[] = {"]
    for r in rows:
        v, d, rev, sv, sd, name, arch, family, gfx, vram, source, unc = (r + [""] * 12)[:12]
        lines.append(f"    {{{v}, {d}, {num(rev)}, {num(sv)}, {num(sd)}, {cpp_string(name)}, {cpp_string(arch)}, "
                     f"{cpp_string(family)}, {gfx or 0}, {vram or 0}, {cpp_string(source)}, "
                     f"{'true' if unc else 'false'}}},")
    lines += ["};", "", "constexpr GpuTableSource k_sources[] = {"]
    for key, citation in sources:
        lines.append(f"    {{{cpp_string(key)}, {cpp_string(citation)}}},")
    lines += ["};", "", "} // namespace", "",
              "std::span<const GpuTableRow> builtin_gpu_rows() {", "  return k_rows;", "}", "",
              "std::span<const GpuTableSource> builtin_gpu_sources() {", "  return k_sources;", "}", "",
              "} // namespace gpudoctor", "// clang-format on", ""]
    return "\n".join(lines)


def emit(_args):
    CPP.write_text(emit_text(ROWS.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"{CPP.relative_to(ROOT)} written")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="step", required=True)
    e = sub.add_parser("extract")
    for key in UPSTREAM:
        e.add_argument("--" + key.replace("_", "-"), dest=key, required=True)
    e.add_argument("--accept-new", action="store_true", help="read files whose sha256 differs from the pin")
    e.add_argument("--report", action="store_true", help="list chips of pci.ids without an architecture")
    e.set_defaults(run=extract)
    sub.add_parser("emit").set_defaults(run=emit)
    args = p.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
