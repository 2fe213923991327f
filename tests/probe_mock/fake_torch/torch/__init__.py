# A stand-in for PyTorch, so that gpudoctor's framework probe (probes/framework_probe.py) prints what it would
# print on the machine a fixture describes. FAKE_TORCH names a JSON scenario (tests/probe_mock/README.md).
import json
import os
import time
import warnings

_s = json.load(open(os.environ["FAKE_TORCH"]))
if _s.get("hang"):
    while True:
        time.sleep(1)
if _s.get("import_error"):
    raise ImportError(_s["import_error"])

__version__ = _s["version"]
float32 = "float32"


class version:
    cuda = _s.get("cuda")
    hip = _s.get("hip")


class _C:
    @staticmethod
    def _cuda_getArchFlags():
        return " ".join(_s.get("arch_list", [])) or None


class _Properties:
    def __init__(self, d):
        self.name = d["name"]
        self.major = d.get("major", 0)
        self.minor = d.get("minor", 0)
        if "gcnArchName" in d:
            self.gcnArchName = d["gcnArchName"]
        for key in ("pci_bus_id", "pci_device_id", "pci_domain_id"):
            if key in d:
                setattr(self, key, d[key])


class _Tensor:
    def __init__(self, values):
        self.values = values

    def __mul__(self, k):
        return _Tensor([v * k for v in self.values])

    def __add__(self, k):
        return _Tensor([v + k for v in self.values])

    def sum(self):
        return _Tensor([float(sum(self.values))])

    def item(self):
        return self.values[0]


def arange(n, device=None, dtype=None):
    index = int(device.split(":")[1])
    error = _s["devices"][index].get("op_error")
    if error:
        raise RuntimeError(error)
    return _Tensor([float(i) for i in range(n)])


class cuda:
    @staticmethod
    def is_available():
        for w in _s.get("warnings", []):
            warnings.warn(w)
        return bool(_s.get("devices"))

    @staticmethod
    def device_count():
        return len(_s.get("devices", []))

    @staticmethod
    def get_arch_list():
        return list(_s.get("arch_list", [])) if _s.get("devices") else []

    @staticmethod
    def get_device_properties(i):
        return _Properties(_s["devices"][i])
