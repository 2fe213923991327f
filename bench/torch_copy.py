"""The reference for gpudoctor's memory-bandwidth probe: PyTorch's device-to-device copy (dst.copy_(src)) on
cuda:0, timed with CUDA events, best of 20 after warm-up, for buffers of 256 MiB and 1 GiB; bytes read plus
written, as the probe counts them. Prints one JSON object."""
import json

import torch

best = {}
for mib in (256, 1024):
    n = mib << 20
    src = torch.empty(n, dtype=torch.uint8, device="cuda:0").random_(0, 255)
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        dst.copy_(src)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    assert torch.equal(dst, src), "the copy came back wrong"
    best[str(mib)] = 2 * n / (min(times) * 1e-3) / 1e9
print(json.dumps({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                  "best_gbps": max(best.values()), "by_mib": best}))
