#!/usr/bin/env python3
"""Dummy PyTorch wheels for the root tests (tests/root/graphs/wheels.txt): each line
`index name version requires...` becomes <out>/<index>/<name>-<version>-py3-none-any.whl with one module
(its __version__) and METADATA naming its Requires-Dist, plus the PEP 503 pages pip reads from a file://
index (<out>/<index>/<name>/index.html). `--corrupt NAME` writes that wheel with one file whose CRC is
wrong, so pip fails while installing it (after it has taken the old version out)."""
import argparse, base64, hashlib, io, os, sys, zipfile


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def wheel_bytes(name, version, requires, corrupt):
    module = name.replace("-", "_")
    # pytorch-triton-rocm and triton both ship the `triton` module, as the real wheels do.
    if name == "pytorch-triton-rocm":
        module = "triton"
    dist = f"{name.replace('-', '_')}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": f"__version__ = {version!r}\n".encode(),
    }
    if name == "torch":
        # What torch's own version.py says (gpudoctor reads it): the CUDA or HIP build of the local tag.
        tag = version.partition("+")[2]
        cuda = f"'{tag[2:-1]}.{tag[-1]}'" if tag.startswith("cu") else "None"
        hip = f"'{tag[4:]}.0'" if tag.startswith("rocm") else "None"
        files[f"{module}/version.py"] = f"__version__ = {version!r}\ncuda = {cuda}\nhip = {hip}\n".encode()
    files |= {
        f"{module}/payload.py": (b"# payload\n" * 200),
        f"{dist}/METADATA": ("Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n" +
                             "".join(f"Requires-Dist: {r}\n" for r in requires)).encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: gpudoctor-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "\n".join(record_line(p, d) for p, d in files.items()) + f"\n{dist}/RECORD,,\n"
    files[f"{dist}/RECORD"] = record.encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for path, data in files.items():
            z.writestr(zipfile.ZipInfo(path, (2024, 1, 1, 0, 0, 0)), data)
    out = bytearray(buf.getvalue())
    if corrupt:
        # Flip one byte of payload.py's stored data: the zip stays readable, its CRC check fails on extraction.
        at = out.find(b"# payload\n")
        out[at] ^= 0x20
    return bytes(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("out")
    ap.add_argument("--corrupt", action="append", default=[])
    args = ap.parse_args()
    links = {}
    for raw in open(args.spec):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        index, name, version, *requires = line.split()
        folder = os.path.join(args.out, index)
        os.makedirs(folder, exist_ok=True)
        fname = f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
        with open(os.path.join(folder, fname), "wb") as f:
            f.write(wheel_bytes(name, version, requires, name + "==" + version in args.corrupt))
        links.setdefault((index, name), []).append(fname)
    for (index, name), files in links.items():
        page = os.path.join(args.out, index, name)
        os.makedirs(page, exist_ok=True)
        with open(os.path.join(page, "index.html"), "w") as f:
            f.write("<!DOCTYPE html><html><body>\n")
            for fname in files:
                f.write(f'<a href="../{fname}">{fname}</a><br/>\n')
            f.write("</body></html>\n")


if __name__ == "__main__":
    sys.exit(main())
