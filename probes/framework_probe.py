# gpudoctor's framework probe (docs/probes.md): run by the python3 in use as `python3 -c <this file>` with a
# time limit. It imports torch, asks what the build targets and what it sees, and runs one small tensor op per
# device; one JSON object per line on stdout, probe "torch". Python 3.6+: no f-strings, no walrus.
# The arch list comes from torch's build flags when no device is usable (get_arch_list() is empty then).
# sum(2i + 1) over i < 4096 is 4096^2, exact in float32.
import json, os, sys, time, warnings
t0 = time.time()
def emit(event, **fields):
    fields = dict(fields)
    line = {"probe": "torch", "event": event}
    line.update(fields)
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
def said(e):
    return "%s: %s" % (type(e).__name__, str(e).strip()[:500])
def end():
    # os._exit skips Python's and torch's shutdown (0.5 s and more on an H200 machine, docs/probes.md): every
    # line is out and flushed, and this child has nothing to clean up.
    emit("end", ms=int((time.time() - t0) * 1000))
    os._exit(0)
emit("start", format=1, python="%d.%d.%d" % sys.version_info[:3], executable=sys.executable)
try:
    import torch
except BaseException as e:
    emit("import", ok=False, error=said(e))
    end()
v = torch.version
hip = getattr(v, "hip", None)
cuda = getattr(v, "cuda", None)
emit("import", ok=True, version=str(torch.__version__), cuda=cuda, hip=hip)
info = {"backend": "hip" if hip else ("cuda" if cuda else "cpu")}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        info["available"] = bool(torch.cuda.is_available())
        info["device_count"] = int(torch.cuda.device_count()) if info["available"] else 0
        arch = list(torch.cuda.get_arch_list()) if info["available"] else []
        flags = getattr(torch._C, "_cuda_getArchFlags", None)
        if not arch and flags is not None and info["backend"] != "cpu":
            arch = (flags() or "").split()
        info["arch_list"] = arch
    except Exception as e:
        info["error"] = said(e)
    info["warnings"] = [str(w.message).strip()[:500] for w in caught]
emit("runtime", **info)
for i in range(info.get("device_count") or 0):
    d = {"index": i, "op_ok": False}
    try:
        p = torch.cuda.get_device_properties(i)
        d["name"] = p.name
        gcn = getattr(p, "gcnArchName", None)
        d["arch"] = gcn if (hip and gcn) else "sm_%d%d" % (p.major, p.minor)
        bus = getattr(p, "pci_bus_id", None)
        if bus is not None:
            domain, device = getattr(p, "pci_domain_id", 0), getattr(p, "pci_device_id", 0)
            d["pci_bus_id"] = "%04x:%02x:%02x.0" % (domain, bus, device)
        x = torch.arange(4096, device="cuda:%d" % i, dtype=torch.float32)
        total = float((x * 2 + 1).sum().item())
        d["op_ok"] = total == 4096.0 * 4096.0
        if not d["op_ok"]:
            d["error"] = "sum(2i+1) over 4096 elements gave %r, not 16777216" % total
    except Exception as e:
        d["error"] = said(e)
    emit("device", **d)
end()
