// "host-bandwidth": pinned host memory to and from each device (the DMA engines over the host link), timed
// with events after a warm-up; the data that went there and back is compared byte for byte.
#include "probe_common.h"
#include "probes.h"

#include <cstring>
#include <vector>

namespace probe {

namespace {

constexpr const char* k_name = "host-bandwidth";
constexpr std::size_t k_bytes = std::size_t(128) << 20;
constexpr int k_warmup = 1;
constexpr int k_iterations = 8;

struct Memory {
  void* host_src = nullptr;
  void* host_dst = nullptr;
  void* device = nullptr;
  ~Memory() {
    if (host_src) (void)gpuFreeHost(host_src);
    if (host_dst) (void)gpuFreeHost(host_dst);
    if (device) (void)gpuFree(device);
  }
};

bool timed(int device, void* dst, const void* src, bool to_device, gpuStream_t s, Rate& rate) {
  Timer timer(s);
  std::vector<float> ms;
  for (int i = 0; i < k_warmup + k_iterations; ++i) {
    float elapsed = 0;
    if (!ok(k_name, timer.begin(), "event timing", device) ||
        !ok(k_name,
            gpuMemcpyAsync(dst, src, k_bytes, to_device ? gpuMemcpyHostToDevice : gpuMemcpyDeviceToHost, s),
            GPU_API("MemcpyAsync"), device) ||
        !ok(k_name, timer.end(elapsed), "event timing", device))
      return false;
    if (i >= k_warmup) ms.push_back(elapsed);
  }
  rate = rate_of(ms, double(k_bytes));
  return true;
}

void emit(int device, const char* test, const Rate& r, bool verified) {
  Line line(k_name, "bandwidth");
  line.num("device", device).str("test", test).num("bytes", static_cast<long long>(k_bytes));
  line.num("iterations", r.iterations).real("best_gbps", r.best_gbps).real("median_gbps", r.median_gbps);
  line.flag("pinned", true).flag("verified", verified).emit();
}

void test(int device) {
  if (!ok(k_name, gpuSetDevice(device), GPU_API("SetDevice"), device)) return;
  Memory m;
  if (!ok(k_name, gpuHostAlloc(&m.host_src, k_bytes), "pinned host allocation", device) ||
      !ok(k_name, gpuHostAlloc(&m.host_dst, k_bytes), "pinned host allocation", device) ||
      !ok(k_name, gpuMalloc(&m.device, k_bytes), GPU_API("Malloc"), device))
    return;
  auto* src = static_cast<unsigned*>(m.host_src);
  for (std::size_t i = 0; i < k_bytes / sizeof(unsigned); ++i)
    src[i] = static_cast<unsigned>(i * 2654435761u);
  std::memset(m.host_dst, 0, k_bytes);
  gpuStream_t stream = nullptr;
  if (!ok(k_name, gpuStreamCreate(&stream), GPU_API("StreamCreate"), device)) return;
  Rate h2d, d2h;
  if (timed(device, m.device, m.host_src, true, stream, h2d) &&
      timed(device, m.host_dst, m.device, false, stream, d2h)) {
    bool same = std::memcmp(m.host_src, m.host_dst, k_bytes) == 0;
    emit(device, "h2d", h2d, same);
    emit(device, "d2h", d2h, same);
  }
  (void)gpuStreamDestroy(stream);
}

} // namespace

int run_host_bandwidth() {
  int count = start(k_name);
  for (int d = 0; d < count; ++d)
    test(d);
  return finish(k_name);
}

} // namespace probe
