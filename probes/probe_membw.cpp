// "memory-bandwidth": STREAM-style copy (a = b) and triad (a = b + 3c) kernels, and the runtime's own
// device-to-device copy, over buffers many times the L2 so that the cache does not answer. Timed with events
// after warm-up; bandwidth counts bytes read plus bytes written; every result is verified on the device.
#include "kernels.h"
#include "probe_common.h"
#include "probes.h"

#include <algorithm>
#include <vector>

namespace probe {

namespace {

constexpr const char* k_name = "memory-bandwidth";
constexpr int k_warmup = 2;
constexpr int k_iterations = 20;
constexpr std::size_t k_mib = std::size_t(1) << 20;

struct Buffers {
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  unsigned long long* bad = nullptr;
  ~Buffers() {
    for (void* p : {a, b, c, static_cast<void*>(bad)})
      if (p) (void)gpuFree(p);
  }
};

// Each buffer: 16 x L2, at least 256 MiB, at most 1 GiB, and the three together under half the free memory.
std::size_t buffer_bytes(const gpuDeviceProp& prop, std::size_t free_bytes) {
  std::size_t want = std::size_t(prop.l2CacheSize > 0 ? prop.l2CacheSize : 8 * k_mib) * 16;
  want = std::min(std::max(want, 256 * k_mib), 1024 * k_mib);
  want = std::min(want, free_bytes / 6);
  return want / (16 * k_mib) * (16 * k_mib);
}

int grid_of(int device, const gpuDeviceProp& prop) {
  int per_sm = 0;
  if (gpuDeviceGetAttribute(&per_sm, gpuDevAttrMaxThreadsPerMultiProcessor, device) != gpuSuccess ||
      per_sm <= 0)
    per_sm = 2048;
  return std::max(1, prop.multiProcessorCount) * std::max(1, per_sm / kernels::k_threads);
}

enum class Test { copy, triad, memcpy };

gpuError_t launch(Test t, Buffers& buf, std::size_t n, int blocks, gpuStream_t s) {
  switch (t) {
  case Test::copy:
    return kernels::copy(buf.a, buf.b, n, blocks, s);
  case Test::triad:
    return kernels::triad(buf.a, buf.b, buf.c, n, blocks, s);
  case Test::memcpy:
    return gpuMemcpyAsync(buf.a, buf.b, n * 16, gpuMemcpyDeviceToDevice, s);
  }
  return gpuSuccess;
}

void measure(int device, Test t, Buffers& buf, std::size_t n, int blocks, gpuStream_t s) {
  static const char* const names[] = {"copy", "triad", "memcpy"};
  const char* name = names[static_cast<int>(t)];
  const double bytes = double(n) * 16 * (t == Test::triad ? 3 : 2);
  if (!ok(k_name, gpuMemset(buf.a, 0, n * 16), GPU_API("Memset"), device)) return;
  Timer timer(s);
  std::vector<float> ms;
  for (int i = 0; i < k_warmup + k_iterations; ++i) {
    float elapsed = 0;
    if (!ok(k_name, timer.begin(), "event timing", device) ||
        !ok(k_name, launch(t, buf, n, blocks, s), name, device) ||
        !ok(k_name, timer.end(elapsed), "event timing", device))
      return;
    if (i >= k_warmup) ms.push_back(elapsed);
  }
  unsigned long long bad = 0;
  bool checked =
      ok(k_name, gpuMemset(buf.bad, 0, sizeof bad), GPU_API("Memset"), device) &&
      ok(k_name, kernels::verify(buf.a, n, t == Test::triad, buf.bad, blocks, s), "verify", device) &&
      ok(k_name, gpuMemcpy(&bad, buf.bad, sizeof bad, gpuMemcpyDeviceToHost), GPU_API("Memcpy"), device);
  Rate r = rate_of(ms, bytes);
  Line line(k_name, "bandwidth");
  line.num("device", device).str("test", name).num("bytes", static_cast<long long>(bytes));
  line.num("iterations", r.iterations).real("best_gbps", r.best_gbps).real("median_gbps", r.median_gbps);
  line.flag("verified", checked && bad == 0);
  if (checked) line.num("mismatches", static_cast<long long>(bad));
  line.emit();
}

void test(int device) {
  if (!ok(k_name, gpuSetDevice(device), GPU_API("SetDevice"), device)) return;
  gpuDeviceProp prop{};
  if (!ok(k_name, gpuGetDeviceProperties(&prop, device), GPU_API("GetDeviceProperties"), device)) return;
  std::size_t free_bytes = 0, total = 0;
  if (!ok(k_name, gpuMemGetInfo(&free_bytes, &total), GPU_API("MemGetInfo"), device)) return;
  std::size_t bytes = buffer_bytes(prop, free_bytes);
  if (bytes == 0) {
    Line(k_name, "skipped").num("device", device).str("reason", "too little free memory").emit();
    return;
  }
  Buffers buf;
  for (void** p : {&buf.a, &buf.b, &buf.c})
    if (!ok(k_name, gpuMalloc(p, bytes), GPU_API("Malloc"), device)) return;
  if (!ok(k_name, gpuMalloc(reinterpret_cast<void**>(&buf.bad), sizeof(unsigned long long)),
          GPU_API("Malloc"), device))
    return;
  gpuStream_t stream = nullptr;
  if (!ok(k_name, gpuStreamCreate(&stream), GPU_API("StreamCreate"), device)) return;
  const std::size_t n = bytes / 16;
  const int blocks = grid_of(device, prop);
  if (ok(k_name, kernels::init_sources(buf.b, buf.c, n, blocks, stream), "init", device) &&
      ok(k_name, gpuStreamSynchronize(stream), GPU_API("StreamSynchronize"), device))
    for (Test t : {Test::copy, Test::triad, Test::memcpy})
      measure(device, t, buf, n, blocks, stream);
  (void)gpuStreamDestroy(stream);
}

} // namespace

int run_memory_bandwidth() {
  int count = start(k_name);
  for (int d = 0; d < count; ++d)
    test(d);
  return finish(k_name);
}

} // namespace probe
