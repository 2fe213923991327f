#!/usr/bin/env python3
"""Dummy RPM repositories from the RPM package graphs of tests/root/graphs/rpm.

usage: make_rpms.py OUT MIRROR_URL GRAPH...

Each graph paragraph is one package (Package, Version, Release, Epoch, Arch, Requires, Provides, Conflicts,
Obsoletes, Repo, Module, File); the packages of one repository (Repo: a path below OUT, as on the vendor's
host) become subpackages of one spec, built by rpmbuild, indexed by createrepo_c. A package that names
Module: NAME:STREAM[, ...] is an artifact of those module streams: the repository gets a modules.yaml
(modulemd v2, added with modifyrepo_c) as NVIDIA's own repositories carry. `@MIRROR@` in a File: line
stands for MIRROR_URL.
"""
import os
import re
import subprocess
import sys
import tempfile

FIELDS = {"Package", "Version", "Release", "Epoch", "Arch", "Requires", "Provides", "Conflicts", "Obsoletes",
          "Repo", "Module", "File", "Summary"}
SAFE = re.compile(r"^[A-Za-z0-9._+:()/ ,<>=@~-]*$")


def parse(path):
    packages, cur = [], None
    for number, raw in enumerate(open(path, encoding="utf-8"), 1):
        line = raw.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line.strip():
            cur = None
            continue
        key, _, value = line.partition(": ")
        if key not in FIELDS:
            sys.exit(f"{path}:{number}: unknown field {key!r}")
        if key != "File" and not SAFE.match(value):
            sys.exit(f"{path}:{number}: unexpected characters in {value!r}")
        if cur is None:
            cur = {"File": []}
            packages.append(cur)
        if key == "File":
            cur["File"].append(value)
        else:
            cur[key] = value
    for p in packages:
        for need in ("Package", "Version", "Release", "Repo"):
            if need not in p:
                sys.exit(f"{path}: a package without {need}: {p}")
    return packages


def words(value):
    return [w.strip() for w in value.split(",") if w.strip()]


def spec_text(packages, mirror, files_out):
    """The spec building every package of one repository; the content of its files goes to files_out."""
    out = ["Name: gd-graph", "Version: 1", "Release: 1", "Summary: graph", "License: none",
           "%global debug_package %{nil}", "%global _build_id_links none", "%global __os_install_post %{nil}",
           "%description", "graph", ""]
    install = ["%install"]
    for n, p in enumerate(packages):
        name = p["Package"]
        out += [f"%package -n {name}", f"Summary: {p.get('Summary', name + ' (gpudoctor test package)')}",
                f"Version: {p['Version']}", f"Release: {p['Release']}"]
        if "Epoch" in p:
            out.append(f"Epoch: {p['Epoch']}")
        if p.get("Arch", "x86_64") == "noarch":
            out.append("BuildArch: noarch")
        for tag in ("Requires", "Provides", "Conflicts", "Obsoletes"):
            for w in words(p.get(tag, "")):
                out.append(f"{tag}: {w}")
        out += [f"%description -n {name}", "A package of gpudoctor's root tests.", f"%files -n {name}"]
        files = p["File"] or [f"/usr/share/doc/{name}/README {name} {p['Version']}"]
        for i, f in enumerate(files):
            path, _, content = f.partition(" ")
            content = content.replace("@MIRROR@", mirror).replace("\\n", "\n")
            out.append(path)
            blob = f"%{{_sourcedir}}/f{n}-{i}"
            install.append(f"mkdir -p %{{buildroot}}{os.path.dirname(path)}")
            install.append(f"cp {blob} %{{buildroot}}{path}")
            files_out.append((blob, content))
        out.append("")
    return "\n".join(out + install) + "\n"


def modules_yaml(packages):
    streams = {}
    for p in packages:
        for m in words(p.get("Module", "")):
            name, _, stream = m.partition(":")
            epoch = p.get("Epoch", "0")
            arch = p.get("Arch", "x86_64")
            streams.setdefault((name, stream), []).append(
                f"{p['Package']}-{epoch}:{p['Version']}-{p['Release']}.{arch}")
    docs = []
    for (name, stream), rpms in sorted(streams.items()):
        names = sorted({r.rsplit("-", 2)[0] for r in rpms})
        docs.append("\n".join([
            "---", "document: modulemd", "version: 2", "data:", f"  name: {name}", f"  stream: \"{stream}\"",
            "  version: 20250101000000", "  context: \"00000000\"", "  arch: x86_64",
            f"  summary: {name} {stream} (gpudoctor test module)", "  description: >-", "    A test module.",
            "  license:", "    module:", "    - MIT", "  profiles:", "    default:", "      rpms:",
            *[f"      - {n}" for n in names], "  artifacts:", "    rpms:", *[f"    - {r}" for r in sorted(rpms)],
            "..."]))
    return "\n".join(docs) + "\n" if docs else ""


def build(packages, mirror, dest, repo):
    blobs = []
    with tempfile.TemporaryDirectory() as top:
        spec = spec_text(packages, mirror, blobs)
        os.makedirs(f"{top}/SOURCES")
        for blob, content in blobs:
            with open(blob.replace("%{_sourcedir}", f"{top}/SOURCES"), "w", encoding="utf-8") as f:
                f.write(content)
        with open(f"{top}/graph.spec", "w", encoding="utf-8") as f:
            f.write(spec)
        r = subprocess.run(["rpmbuild", "--define", f"_topdir {top}", "--target", "x86_64", "-bb",
                            f"{top}/graph.spec"], capture_output=True, text=True, timeout=300)
        if r.returncode:
            sys.exit(f"rpmbuild failed for {repo}:\n{r.stderr[-3000:]}")
        for root, _, files in os.walk(f"{top}/RPMS"):
            for f in files:
                os.replace(os.path.join(root, f), os.path.join(dest, f))


def main():
    out, mirror, graphs = sys.argv[1], sys.argv[2], sys.argv[3:]
    by_repo = {}
    for g in graphs:
        for p in parse(g):
            by_repo.setdefault(p["Repo"], []).append(p)
    for repo, packages in sorted(by_repo.items()):
        dest = os.path.join(out, repo)
        os.makedirs(dest, exist_ok=True)
        # A spec names each package once: the second version of a name goes to a second spec.
        batches, seen = [], {}
        for p in packages:
            n = seen.get(p["Package"], 0)
            seen[p["Package"]] = n + 1
            if n == len(batches):
                batches.append([])
            batches[n].append(p)
        for batch in batches:
            build(batch, mirror, dest, repo)
        subprocess.run(["createrepo_c", "-q", dest], check=True, timeout=300)
        modules = modules_yaml(packages)
        if modules:
            with open(f"{dest}/modules.yaml", "w", encoding="utf-8") as f:
                f.write(modules)
            subprocess.run(["modifyrepo_c", "--mdtype=modules", f"{dest}/modules.yaml",
                            f"{dest}/repodata"], check=True, timeout=300, capture_output=True)
            os.remove(f"{dest}/modules.yaml")


if __name__ == "__main__":
    main()
