// "p2p": which devices can reach each other's memory directly, and how fast a peer copy runs between each
// such pair (timed on the source device's stream; a sample of the copied bytes is checked).
#include "probe_common.h"
#include "probes.h"

#include <vector>

namespace probe {

namespace {

constexpr const char* k_name = "p2p";
constexpr std::size_t k_bytes = std::size_t(64) << 20;
constexpr std::size_t k_sample = std::size_t(1) << 20;
constexpr int k_warmup = 1;
constexpr int k_iterations = 5;

bool sample_is(const void* device_ptr, unsigned char value, int device) {
  if (!ok(k_name, gpuSetDevice(device), GPU_API("SetDevice"), device)) return false;
  std::vector<unsigned char> host(k_sample);
  const auto* base = static_cast<const unsigned char*>(device_ptr);
  for (const unsigned char* at : {base, base + k_bytes - k_sample}) {
    if (!ok(k_name, gpuMemcpy(host.data(), at, k_sample, gpuMemcpyDeviceToHost), GPU_API("Memcpy"), device))
      return false;
    for (unsigned char c : host)
      if (c != value) return false;
  }
  return true;
}

void copy_pair(int from, int to, const std::vector<void*>& src, const std::vector<void*>& dst) {
  if (!ok(k_name, gpuSetDevice(from), GPU_API("SetDevice"), from)) return;
  gpuError_t e = gpuDeviceEnablePeerAccess(to, 0);
  if (e == gpuErrorPeerAccessAlreadyEnabled)
    (void)gpuGetLastError(); // not a failure; clear it
  else if (!ok(k_name, e, GPU_API("DeviceEnablePeerAccess"), from))
    return;
  // The destination is cleared on its own device; the copy runs on the source's stream.
  if (!ok(k_name, gpuSetDevice(to), GPU_API("SetDevice"), to) ||
      !ok(k_name, gpuMemset(dst[to], 0, k_bytes), GPU_API("Memset"), to) ||
      !ok(k_name, gpuDeviceSynchronize(), GPU_API("DeviceSynchronize"), to) ||
      !ok(k_name, gpuSetDevice(from), GPU_API("SetDevice"), from))
    return;
  gpuStream_t stream = nullptr;
  if (!ok(k_name, gpuStreamCreate(&stream), GPU_API("StreamCreate"), from)) return;
  {
    Timer timer(stream);
    std::vector<float> ms;
    bool good = true;
    for (int i = 0; good && i < k_warmup + k_iterations; ++i) {
      float elapsed = 0;
      good = ok(k_name, timer.begin(), "event timing", from) &&
             ok(k_name, gpuMemcpyPeerAsync(dst[to], to, src[from], from, k_bytes, stream),
                GPU_API("MemcpyPeerAsync"), from) &&
             ok(k_name, timer.end(elapsed), "event timing", from);
      if (good && i >= k_warmup) ms.push_back(elapsed);
    }
    if (good) {
      Rate r = rate_of(ms, double(k_bytes));
      bool verified = sample_is(dst[to], static_cast<unsigned char>(0x40 + from), to);
      Line line(k_name, "bandwidth");
      line.num("from", from).num("to", to).num("bytes", static_cast<long long>(k_bytes));
      line.num("iterations", r.iterations).real("best_gbps", r.best_gbps).real("median_gbps", r.median_gbps);
      line.flag("verified", verified).emit();
    }
  }
  (void)gpuStreamDestroy(stream);
}

} // namespace

int run_p2p() {
  int count = start(k_name);
  std::vector<std::vector<int>> access(count > 0 ? count : 0, std::vector<int>(count > 0 ? count : 0, 0));
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j) {
      if (i == j) continue;
      int can = 0;
      if (!ok(k_name, gpuDeviceCanAccessPeer(&can, i, j), GPU_API("DeviceCanAccessPeer"), i)) continue;
      access[i][j] = can;
      Line(k_name, "access").num("from", i).num("to", j).flag("can_access", can != 0).emit();
    }
  std::vector<void*> src(count > 0 ? count : 0, nullptr), dst(count > 0 ? count : 0, nullptr);
  bool ready = count >= 2;
  for (int d = 0; ready && d < count; ++d)
    ready = ok(k_name, gpuSetDevice(d), GPU_API("SetDevice"), d) &&
            ok(k_name, gpuMalloc(&src[d], k_bytes), GPU_API("Malloc"), d) &&
            ok(k_name, gpuMalloc(&dst[d], k_bytes), GPU_API("Malloc"), d) &&
            ok(k_name, gpuMemset(src[d], 0x40 + d, k_bytes), GPU_API("Memset"), d);
  for (int i = 0; ready && i < count; ++i)
    for (int j = 0; j < count; ++j)
      if (i != j && access[i][j]) copy_pair(i, j, src, dst);
  for (int d = 0; d < count; ++d) {
    (void)gpuSetDevice(d);
    if (src[d]) (void)gpuFree(src[d]);
    if (dst[d]) (void)gpuFree(dst[d]);
  }
  return finish(k_name);
}

} // namespace probe
